import type {Message} from '../../core/messages.js';
import type {Result} from '../../core/result.js';
import type {ToolContext} from '../../core/tool.js';
import {SUMMARY_PREFIX, SUMMARY_FOLD} from '../compact.js';
import type {SnapshotRecord} from './log.js';
import type {PromptExtras} from './prompt-extras.js';
import type {SessionStore} from './store.js';
import {canRestore} from './undo-points.js';

/** What /rewind takes back: both, or one of them. */
export type RewindScope = 'both' | 'conversation' | 'files';

/**
 * /rewind: going back to just before an earlier prompt. The conversation part cuts the history
 * at that prompt's user message; the files part is /undo of that turn (snapshots.ts). Each turn
 * adds exactly one user message, so the last user message is the latest turn and the ones before
 * it count back from there; a compaction's summary, when it stands as a message of its own, is
 * not a turn.
 */

export type RewindPoint = {
  turn: number;
  /** The prompt as the person typed it (mentions unexpanded), for the list and the input box. */
  prompt: string;
  /** Index of the turn's user message in the history: the conversation is cut there. */
  historyIndex: number;
  /** A snapshot was taken before this turn or a later one, so the files of before it can be restored. */
  files: boolean;
};

export function rewindPoints(input: {
  history: readonly Message[];
  /** User turns so far; the last user message in the history is this one. */
  turns: number;
  /** Typed prompts by turn (1-based: index 0 is turn 1); where one is missing, the message is shown. */
  prompts: readonly (string | undefined)[];
  snapshots: readonly SnapshotRecord[];
}): RewindPoint[] {
  const turnMessages: number[] = [];
  input.history.forEach((message, index) => {
    if (message.type === 'user' && !isStandaloneSummary(message.content)) turnMessages.push(index);
  });
  // Messages of older logs carry no turn: they are the last turns, counted back (a turn that left
  // no prompt in the history, a !command or a prompt taken back, shifts that count).
  const first = input.turns - turnMessages.length + 1;
  const points: RewindPoint[] = [];
  turnMessages.forEach((historyIndex, offset) => {
    const message = input.history[historyIndex] as Extract<Message, {type: 'user'}>;
    // A summary folded into the first kept prompt: cutting there would drop the summary too.
    if (message.content.startsWith(SUMMARY_PREFIX)) return;
    const turn = message.turn ?? first + offset;
    points.push({
      turn,
      prompt: input.prompts[turn - 1] ?? message.content,
      historyIndex,
      files: canRestore(input.snapshots, turn),
    });
  });
  return points;
}

/** compact.ts folds the summary into the first kept prompt when there is one; otherwise it stands alone. */
function isStandaloneSummary(content: string): boolean {
  return content.startsWith(SUMMARY_PREFIX) && !content.includes(SUMMARY_FOLD);
}

/**
 * Takes the session back to just before `point`: the files from the snapshot taken before it
 * (as /undo does), the conversation cut at its prompt (what was read since is forgotten, so the
 * read-before-write guard asks again), or both. Returns the line for the screen.
 */
export async function rewindTo(
  point: RewindPoint,
  scope: RewindScope,
  session: {messages: Message[]; store: SessionStore; context: ToolContext; extras: PromptExtras; tellModel: (note: string) => void},
): Promise<Result<string>> {
  if (scope !== 'conversation') {
    const undone = await session.store.undo(point.turn);
    if (!undone.ok) return undone;
    // With the conversation kept, the model must learn its changes are gone.
    if (scope === 'files') session.tellModel(undone.value.note);
  }
  if (scope !== 'files') {
    session.messages.splice(point.historyIndex);
    session.context.ledger.clear();
    session.extras.forget(point.turn);
    await session.store.rewindConversation(point.turn, session.messages);
  }
  const what = scope === 'both' ? 'conversation and files' : scope === 'conversation' ? 'conversation' : 'files';
  return {ok: true, value: `Rewound the ${what} to just before turn ${point.turn}.`};
}
