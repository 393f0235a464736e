import type {Message} from '../../core/messages.js';
import {firstLine} from '../../core/text.js';
import type {ToolContext} from '../../core/tool.js';
import {expandMentions, type Attachment} from '../mentions.js';
import {withUserCommandNotes} from '../user-command.js';
import type {SnapshotRecord} from './log.js';
import {typedPrompts, type LoadedSession} from './saved.js';
import {rewindPoints, type RewindPoint} from './rewind.js';

/**
 * What a session keeps between prompts for the prompt habits: the `!command` notes waiting for
 * the next prompt, and each turn's prompt as typed (the model received it with its attachments;
 * /rewind shows and gives back what the person wrote).
 */
export class PromptExtras {
  private notes: string[] = [];
  private told: string[] = [];
  private prompts: Array<string | undefined>;

  constructor(
    loaded: Pick<LoadedSession, 'records'> | null,
    private readonly refreshInstructions?: () => Promise<string | null>,
  ) {
    this.prompts = loaded ? typedPrompts(loaded.records) : [];
  }

  /**
   * The text the model receives for turn `turn`: waiting notes first, then the prompt with its @
   * attachments (a command's output is not searched for mentions: it was not typed). What to tell
   * the person waits in `told` for the prompt to be on screen: what was attached, an @path a deny
   * rule kept out, and a change of the instruction files, which the model has from this prompt on.
   */
  async prepare(text: string, turn: number, context: ToolContext, signal: AbortSignal): Promise<string> {
    const changed = await this.refreshInstructions?.();
    if (changed) this.told.push(changed);
    this.prompts[turn - 1] = text;
    const notes = this.notes.splice(0);
    const expanded = await expandMentions(text, context, signal);
    if (expanded.attachments.length > 0) this.told.push(`Attached for the model: ${expanded.attachments.map(attachedName).join(', ')}`);
    for (const line of expanded.refused) this.told.push(line.replace(/\.$/, ''));
    return withUserCommandNotes(expanded.text, notes);
  }

  /** The lines `prepare` kept for the person, once. */
  takeTold(): string[] {
    return this.told.splice(0);
  }

  /** A `!command` and its output, for the next prompt. */
  addNote(note: string): void {
    this.notes.push(note);
  }

  /** Notes not sent yet (shown nowhere; for tests and for a session that ends with some). */
  get pendingNotes(): readonly string[] {
    return this.notes;
  }

  /** A fresh conversation or another session: nothing carries over. */
  reset(loaded: Pick<LoadedSession, 'records'> | null): void {
    this.notes = [];
    this.prompts = loaded ? typedPrompts(loaded.records) : [];
  }

  points(history: readonly Message[], turns: number, snapshots: readonly SnapshotRecord[]): RewindPoint[] {
    return rewindPoints({history, turns, prompts: this.prompts, snapshots});
  }

  /** The conversation went back to before `turn`: its prompt and later ones, and waiting notes, are gone. */
  forget(turn: number): void {
    this.prompts.length = Math.min(this.prompts.length, turn - 1);
    this.notes = [];
  }
}

/** `src/a.ts`, `docs/ (listing)`, or `a.png (unreadable: a.png looks like a binary file)`: what went to the model, as one name. */
function attachedName(attachment: Attachment): string {
  // The reason's first clause: "logo.png looks like a binary file (it contains NUL bytes); …".
  if (attachment.isError) return `${attachment.path} (unreadable: ${firstLine(attachment.content, 80).split(/ \(|;/, 1)[0]!.replace(/\.$/, '')})`;
  return attachment.kind === 'directory' ? `${attachment.path.replace(/\/?$/, '/')} (listing)` : attachment.path;
}
