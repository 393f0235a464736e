import type {ChatProvider} from '../../core/chat.js';
import type {Message} from '../../core/messages.js';
import {compactHistory} from '../compact.js';
import {summaryRoom} from '../fit.js';
import type {Result} from '../../core/result.js';
import type {ToolContext} from '../../core/tool.js';
import type {Guard} from '../guard/guard.js';
import {resumedNotice, type SessionEvent} from './events.js';
import type {PromptExtras} from './prompt-extras.js';
import {replayEvents} from './replay.js';
import {rewindTo, type RewindPoint, type RewindScope} from './rewind.js';
import {loadById} from './saved.js';
import type {SessionStore} from './store.js';

/**
 * The conversation's state as AgentSession holds it, handed to the operations below that start it
 * over, switch it or take it back. AgentSession runs each while it holds the session.
 */
export type Conversation = {
  messages: Message[];
  grants: Set<string>;
  guard: Guard | undefined;
  context: ToolContext;
  extras: PromptExtras;
  store: SessionStore;
  model: string;
  emit: (event: SessionEvent) => void;
  /** The grants and the context fill, as the screen shows them. */
  report: () => void;
};

/** What was granted and read belongs to the conversation that is gone. */
function forget(conversation: Conversation): void {
  conversation.grants.clear();
  conversation.guard?.forgetSession();
  conversation.context.ledger.clear();
}

/** A fresh conversation in a new log; the old one stays resumable. */
export async function startOver(conversation: Conversation): Promise<Result<void>> {
  conversation.messages.splice(1);
  forget(conversation);
  conversation.extras.reset(null);
  await conversation.store.startFresh(conversation.model);
  conversation.emit({type: 'cleared'});
  conversation.report();
  return {ok: true, value: undefined};
}

/** Another session of this workspace, by id or id prefix, replayed on screen. */
export async function switchTo(conversation: Conversation, id: string): Promise<Result<void>> {
  const loaded = await loadById(conversation.store.dir, id);
  if (!loaded.ok) return loaded;
  await conversation.store.switchTo(loaded.value);
  conversation.messages.splice(1, conversation.messages.length, ...loaded.value.history);
  forget(conversation);
  conversation.extras.reset(loaded.value);
  conversation.emit({type: 'cleared'});
  for (const event of replayEvents(loaded.value)) conversation.emit(event);
  for (const warning of loaded.value.warnings) conversation.emit({type: 'notice', text: warning});
  conversation.emit(resumedNotice(loaded.value));
  conversation.report();
  return {ok: true, value: undefined};
}

/** The system message carries what the model must know about the files, without a fake turn. */
export function tellModel(messages: Message[], note: string): void {
  const system = messages[0];
  if (system?.type === 'system') messages[0] = {...system, content: `${system.content}\n\n${note}`};
}

/** Restores the files to before turn `turn` (the last one by default) and tells the model so. */
export async function undoTurn(conversation: Conversation, turn: number | undefined) {
  const result = await conversation.store.undo(turn);
  if (result.ok) tellModel(conversation.messages, result.value.note);
  return result;
}

/** The earlier prompts /rewind can go back to, oldest first. */
export function rewindPoints(conversation: Pick<Conversation, 'extras' | 'messages' | 'store'>): RewindPoint[] {
  return conversation.extras.points(conversation.messages, conversation.store.turns, conversation.store.snapshots);
}

/**
 * Back to just before turn `turn`: the files (from its snapshot), the conversation (cut at its
 * prompt; what was read since is forgotten), or both. Returns the prompt as typed, for the input box.
 */
export async function rewind(conversation: Conversation, turn: number, scope: RewindScope): Promise<Result<{prompt: string}>> {
  const point = rewindPoints(conversation).find(candidate => candidate.turn === turn);
  if (!point) return {ok: false, error: `Turn ${turn} is not in the conversation (it was compacted, or never happened).`};
  const {messages, store, context, extras} = conversation;
  const done = await rewindTo(point, scope, {messages, store, context, extras, tellModel: note => tellModel(messages, note)});
  if (!done.ok) return done;
  conversation.emit({type: 'notice', text: done.value});
  conversation.report();
  return {ok: true, value: {prompt: point.prompt}};
}

/** /compact: even a short conversation is summarised (about its last quarter kept); an interrupt leaves it as it was. */
export async function compactNow(conversation: Conversation, provider: ChatProvider, signal: AbortSignal): Promise<Result<{summarised: number; kept: number}>> {
  const {messages, store} = conversation;
  const tracker = store.window.tracker;
  const keepTokens = Math.min(tracker.keepTokens, Math.floor(tracker.tokens(messages) / 4));
  // Cut to the window like automatic compaction: a small local window refuses a 400k-character request.
  const result = await compactHistory({provider, history: messages, keepTokens, ...summaryRoom(tracker), signal});
  if (!result.ok) return {ok: false, error: signal.aborted ? 'Compaction interrupted; the conversation is as it was.' : result.error.message};
  messages.splice(0, messages.length, ...result.value.history);
  await store.recordCompaction(result.value.history, result.value.summary);
  conversation.report();
  return {ok: true, value: {summarised: result.value.summarised, kept: result.value.kept}};
}
