import {readdir, readFile, rm, stat} from 'node:fs/promises';
import {join} from 'node:path';
import {unansweredToolCalls, type Message} from '../../core/messages.js';
import type {Result} from '../../core/result.js';
import {SESSION_VERSION, type SessionError, type SessionHeader, type SessionRecord, type SnapshotRecord} from './log.js';
import {keptByConversationRewind} from './undo-points.js';

/**
 * Sessions already on disk: loading one back (repairing what a crash left), and finding, listing,
 * deleting and pruning them. SessionLog (log.ts) is the writing side.
 */


export type LoadedSession = {
  path: string;
  header: SessionHeader;
  /** Every record after the header, in order (for re-rendering the transcript). */
  records: Exclude<SessionRecord, SessionHeader>[];
  /** Every message ever appended, compactions notwithstanding. */
  messages: Message[];
  /** What the next request should carry: compaction applied and every tool call answered. */
  history: Message[];
  snapshots: SnapshotRecord[];
  /** User turns. */
  turns: number;
  /** Lines that could not be read (a torn last line, a damaged one): said, never fatal. */
  warnings: string[];
};

export const INTERRUPTED_RESULT = 'Interrupted: nib stopped before this tool call finished, so it may not have run.';

export async function loadSession(path: string): Promise<Result<LoadedSession, SessionError>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return {ok: false, error: {code: 'not-found', message: `No session file at ${path}.`}};
    return {ok: false, error: {code: 'unreadable', message: `Cannot read session ${path}: ${(error as Error).message}`}};
  }
  // The schemas (and zod) load only here: a new session never reads a log back.
  return parseSession(path, text, await import('./log-schema.js'));
}

function parseSession(path: string, text: string, {HeaderSchema, RecordSchema}: typeof import('./log-schema.js')): Result<LoadedSession, SessionError> {
  const lines = text.split('\n');
  const endsWhole = text.endsWith('\n');
  if (endsWhole) lines.pop();
  const header = HeaderSchema.safeParse(parseJson(lines[0] ?? ''));
  if (!header.success) {
    return {
      ok: false,
      error: {code: 'not-a-session', message: `${path} is not a nib session log (its first line is not a session header); it was left alone.`},
    };
  }
  const warnings: string[] = [];
  // Read as far as this version knows how; a newer nib may have written what it skips.
  if (header.data.version > SESSION_VERSION) warnings.push(`${path} was written by a newer nib (log version ${header.data.version}, this one reads ${SESSION_VERSION}); what this version does not know is skipped.`);
  const records: LoadedSession['records'] = [];
  for (let index = 1; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.trim() === '') continue;
    const parsed = RecordSchema.safeParse(parseJson(line));
    if (parsed.success) {
      records.push(parsed.data as LoadedSession['records'][number]);
      continue;
    }
    const isLast = index === lines.length - 1;
    warnings.push(isLast && !endsWhole
      ? `The last line of ${path} was cut off (nib was stopped, or the disk filled, mid-write); it was ignored.`
      : `Line ${index + 1} of ${path} could not be read; it was ignored.`);
  }
  const messages: Message[] = [];
  let history: Message[] = [];
  const snapshots: SnapshotRecord[] = [];
  let turns = 0;
  for (const record of records) {
    if (record.type === 'message') {
      messages.push(record.message);
      history.push(record.message);
      if (record.message.type === 'user') turns++;
    } else if (record.type === 'compaction') {
      history = [...record.history];
    } else if (record.type === 'snapshot') {
      snapshots.push(record);
    } else if (record.type === 'undo') {
      snapshots.splice(0, snapshots.length, ...snapshots.filter(snapshot => snapshot.turn < record.turn));
    } else if (record.type === 'rewind') {
      // The turns from `turn` on never happened as far as the conversation goes; new ones reuse their numbers.
      history = [...record.history];
      turns = record.turn - 1;
      snapshots.splice(0, snapshots.length, ...keptByConversationRewind(snapshots, record.turn));
    }
  }
  return {ok: true, value: {path, header: header.data, records, messages, history: repairHistory(history), snapshots, turns, warnings}};
}

/**
 * Makes a history valid for the API: every tool call is followed by its result (an "interrupted"
 * one where nib died before it had one), and no result answers a call that is not there.
 */
export function repairHistory(history: readonly Message[]): Message[] {
  const hasOrphans = () => {
    const calls = new Set<string>();
    for (const message of history) if (message.type === 'assistant-tool-calls') for (const call of message.toolCalls) calls.add(call.id);
    return history.some(message => message.type === 'tool-result' && !calls.has(message.toolCallId));
  };
  if (unansweredToolCalls(history).length === 0 && !hasOrphans() && resultsAreAdjacent(history)) return [...history];
  const out: Message[] = [];
  for (let index = 0; index < history.length; index++) {
    const message = history[index]!;
    if (message.type === 'tool-result') continue; // placed right after its call below
    out.push(message);
    if (message.type !== 'assistant-tool-calls') continue;
    for (const call of message.toolCalls) {
      const result = history.find(m => m.type === 'tool-result' && m.toolCallId === call.id);
      out.push(result ?? {type: 'tool-result', toolCallId: call.id, content: INTERRUPTED_RESULT, isError: true});
    }
  }
  return out;
}

/** The API wants a call's results right after the assistant message that made it. */
function resultsAreAdjacent(history: readonly Message[]): boolean {
  let open = new Set<string>();
  for (const message of history) {
    if (message.type === 'tool-result') {
      if (!open.delete(message.toolCallId)) return false;
    } else {
      if (open.size > 0) return false;
      open = message.type === 'assistant-tool-calls' ? new Set(message.toolCalls.map(call => call.id)) : new Set();
    }
  }
  return open.size === 0;
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined; // the caller reports the line
  }
}

// ---------------------------------------------------------------------------------------------
// Listing, deleting, retention

export type SessionSummary = {
  id: string;
  path: string;
  /** ISO time from the header. */
  created: string;
  /** Last write (ms since epoch). */
  updated: number;
  model: string;
  firstPrompt: string;
  turns: number;
  messages: number;
};

/** Session files of one workspace, newest write first, without reading them. */
export async function sessionFiles(dir: string): Promise<Array<{id: string; path: string; updated: number}>> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return []; // no sessions yet in this workspace
  }
  const files = await Promise.all(
    names
      .filter(name => name.endsWith('.jsonl'))
      .map(async name => {
        const path = join(dir, name);
        const info = await stat(path).catch(() => null);
        return info ? {id: name.slice(0, -'.jsonl'.length), path, updated: info.mtimeMs} : null;
      }),
  );
  return files.filter(file => file !== null).sort((a, b) => b.updated - a.updated || b.id.localeCompare(a.id));
}

/** The workspace's most recently written session, or null. */
export async function latestSession(dir: string): Promise<string | null> {
  const files = await sessionFiles(dir);
  return files[0]?.path ?? null;
}

/** Finds a session by id or unambiguous id prefix. */
export async function findSession(dir: string, id: string): Promise<Result<string, SessionError>> {
  const files = await sessionFiles(dir);
  const exact = files.find(file => file.id === id);
  if (exact) return {ok: true, value: exact.path};
  const matches = files.filter(file => file.id.startsWith(id));
  if (matches.length === 1) return {ok: true, value: matches[0]!.path};
  return {
    ok: false,
    error: {
      code: 'not-found',
      message: matches.length === 0 ? `No session ${id} in this workspace (nib --resume lists them).` : `Session id ${id} is ambiguous: ${matches.map(m => m.id).join(', ')}.`,
    },
  };
}

/** Sessions of one workspace for a picker, newest first. Unreadable files are listed as such. */
export async function listSessions(dir: string): Promise<SessionSummary[]> {
  const files = await sessionFiles(dir);
  return Promise.all(
    files.map(async file => {
      const loaded = await loadSession(file.path);
      if (!loaded.ok) {
        return {id: file.id, path: file.path, created: '', updated: file.updated, model: '', firstPrompt: `(${loaded.error.message})`, turns: 0, messages: 0};
      }
      const {header, messages, turns, records} = loaded.value;
      // The prompt as typed (a turn's start records it), not the message sent, which carries the
      // files attached with @; a log without one falls back to the message.
      const typed = typedPrompts(records)[0];
      const first = typed !== undefined ? {content: typed} : messages.find(message => message.type === 'user');
      return {
        id: header.id,
        path: file.path,
        created: header.created,
        updated: file.updated,
        model: header.model,
        firstPrompt: first ? first.content.replace(/\s+/g, ' ').trim() : '',
        turns,
        messages: messages.length,
      };
    }),
  );
}

export async function deleteSession(dir: string, id: string): Promise<Result<string, SessionError>> {
  const found = await findSession(dir, id);
  if (!found.ok) return found;
  await rm(found.value, {force: true});
  return found;
}

export type SessionChoice =
  /** A fresh session. */
  | {kind: 'new'}
  /** The workspace's latest session (`--continue`). */
  | {kind: 'latest'}
  /** A session by id or id prefix (`--resume ID`). */
  | {kind: 'id'; id: string};

/** The session to continue, or null for a new one; why it could not be had goes to `notices`. */
export async function loadChoice(dir: string, choice: SessionChoice, notices: string[]): Promise<LoadedSession | null> {
  if (choice.kind === 'new') return null;
  const path = choice.kind === 'latest' ? await latestSession(dir) : await findSession(dir, choice.id);
  if (path === null) {
    notices.push('No earlier session in this workspace; starting a new one.');
    return null;
  }
  if (typeof path === 'object' && !path.ok) {
    notices.push(`${path.error.message} Starting a new session.`);
    return null;
  }
  const result = await loadSession(typeof path === 'string' ? path : path.value);
  if (!result.ok) {
    notices.push(`${result.error.message} Starting a new session.`);
    return null;
  }
  notices.push(...result.value.warnings);
  return result.value;
}

/** A session of this workspace by id or id prefix, loaded; a sentence when there is none. */
export async function loadById(dir: string, id: string): Promise<Result<LoadedSession>> {
  const found = await findSession(dir, id);
  if (!found.ok) return {ok: false, error: found.error.message};
  const loaded = await loadSession(found.value);
  return loaded.ok ? loaded : {ok: false, error: loaded.error.message};
}

/** Deletes a session of this workspace, but never the one in use (`current`, its path). */
export async function deleteOther(dir: string, id: string, current: string): Promise<Result<string>> {
  const found = await findSession(dir, id);
  if (found.ok && found.value === current) return {ok: false, error: 'That is the session you are in; resume another one first.'};
  const deleted = await deleteSession(dir, id);
  return deleted.ok ? deleted : {ok: false, error: deleted.error.message};
}

/**
 * The prompts as typed, by turn, from a resumed log: the session records the typed text in each
 * turn-start (the model received it with any attachments), and a rewind forgets the turns it undid.
 */
export function typedPrompts(records: LoadedSession['records']): string[] {
  const prompts: string[] = [];
  for (const record of records) {
    if (record.type === 'event' && record.event.type === 'turn-start') prompts.push(String((record.event as {prompt?: unknown}).prompt ?? ''));
    else if (record.type === 'rewind') prompts.length = Math.min(prompts.length, record.turn - 1);
  }
  return prompts;
}
