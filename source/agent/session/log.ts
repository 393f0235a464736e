import {createHash, randomBytes} from 'node:crypto';
import {mkdir, open, type FileHandle} from 'node:fs/promises';
import {nibDir} from '../config/xdg.js';
import {basename, join} from 'node:path';
import type {AgentEvent} from '../../core/events.js';
import type {LoadedSession} from './saved.js';
import type {Message} from '../../core/messages.js';
import type {Redactor} from '../config/redact.js';
import type {Failure} from '../../core/result.js';

/**
 * Append-only JSONL session logs, one file per session, grouped by workspace:
 *   $XDG_DATA_HOME/nib/sessions/<workspace-key>/<id>.jsonl
 * The first line is a header; every later line is one record. A log is never rewritten, only
 * appended to, so a crash can at worst tear its last line, which loading ignores.
 */

export const SESSION_VERSION = 1;

/** Events a person would want to see again on resume; deltas and raw tool output are not kept. */
const KEPT_EVENTS = new Set<AgentEvent['type']>([
  'turn-start',
  'tool-call',
  'approval-decision',
  'tool-result',
  'usage',
  'error',
  'turn-end',
]);

/**
 * Events before which everything recorded so far must be on disk: the next request, a wait for
 * the person, a tool that may take minutes, and the end of a turn.
 */
const FLUSH_BEFORE = new Set<AgentEvent['type']>([
  'request-start',
  'approval-request',
  'tool-start',
  'turn-end',
  'error',
]);

export type SessionHeader = {
  type: 'header';
  version: number;
  id: string;
  /** ISO time. */
  created: string;
  cwd: string;
  model: string;
};

export type SnapshotRecord = {
  type: 'snapshot';
  at: number;
  /** 1-based user turn. */
  turn: number;
  /** `before` is taken before the turn may change files, `after` once it ended. */
  phase: 'before' | 'after';
  id: string;
};

export type SessionRecord =
  | SessionHeader
  | {type: 'message'; at: number; message: Message}
  | {type: 'event'; at: number; event: AgentEvent}
  | SnapshotRecord
  /** /undo restored the workspace to before `turn`: snapshots of that turn and later are void. */
  | {type: 'undo'; at: number; turn: number}
  /** From here on the model sees `history` instead of the messages before it (see compact.ts). */
  | {type: 'compaction'; at: number; history: Message[]; summary: string}
  /** /rewind went back to just before `turn`: the conversation is `history`, later snapshots are void. */
  | {type: 'rewind'; at: number; turn: number; history: Message[]};

export type SessionErrorCode = 'not-found' | 'not-a-session' | 'unreadable';
export type SessionError = Failure<SessionErrorCode>;

// ---------------------------------------------------------------------------------------------
// Where sessions live

/** nib's data directory: $XDG_DATA_HOME/nib, else ~/.local/share/nib. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  return nibDir(env, 'XDG_DATA_HOME');
}

/**
 * A folder name for a workspace that a person can recognise (`myproject-3f9a0c12d4`) and that
 * cannot collide: the hash is of the real path, the name part is only for reading.
 */
export function workspaceKey(realRoot: string): string {
  const name = basename(realRoot).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40) || 'root';
  const hash = createHash('sha256').update(realRoot).digest('hex').slice(0, 10);
  return `${name}-${hash}`;
}

export function sessionsRoot(data: string): string {
  return join(data, 'sessions');
}

export function sessionsDir(data: string, realRoot: string): string {
  return join(sessionsRoot(data), workspaceKey(realRoot));
}

/** Sortable by the second it was made in (then random), unique enough for one person's machine. */
function newSessionId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

// ---------------------------------------------------------------------------------------------
// Writing

export type SessionLogOptions = {
  /** The workspace's sessions folder (sessionsDir()). */
  dir: string;
  id?: string;
  cwd: string;
  model: string;
  redact: Redactor;
  now?: () => number;
};

/**
 * One session's log. `record*` buffers; `flush()` appends the buffer and fsyncs it. `observe()`
 * does both for the loop's events: call it (and await it) for every event before asking the loop
 * for the next one, and every request starts with the history already on disk.
 * The file is created on the first flush, so a session with no prompt leaves nothing behind.
 */
export class SessionLog {
  readonly id: string;
  readonly path: string;
  private readonly redact: Redactor;
  private readonly now: () => number;
  private pending: string[] = [];
  private handle: FileHandle | null = null;
  private writing: Promise<void> = Promise.resolve();
  private header: SessionHeader | null;

  private constructor(options: {id: string; path: string; redact: Redactor; now: () => number; header: SessionHeader | null}) {
    this.id = options.id;
    this.path = options.path;
    this.redact = options.redact;
    this.now = options.now;
    this.header = options.header;
  }

  static create(options: SessionLogOptions): SessionLog {
    const now = options.now ?? Date.now;
    const id = options.id ?? newSessionId(new Date(now()));
    const header: SessionHeader = {
      type: 'header',
      version: SESSION_VERSION,
      id,
      created: new Date(now()).toISOString(),
      cwd: options.cwd,
      model: options.model,
    };
    return new SessionLog({id, path: join(options.dir, `${id}.jsonl`), redact: options.redact, now, header});
  }

  /** Appends to an existing log (resume). */
  static reopen(loaded: LoadedSession, options: {redact: Redactor; now?: () => number}): SessionLog {
    return new SessionLog({id: loaded.header.id, path: loaded.path, redact: options.redact, now: options.now ?? Date.now, header: null});
  }

  recordMessage(message: Message): void {
    this.push({type: 'message', at: this.now(), message});
  }

  recordEvent(event: AgentEvent): void {
    if (event.type === 'message') this.recordMessage(event.message);
    else if (event.type === 'compaction') this.recordCompaction(event.history, event.summary);
    else if (KEPT_EVENTS.has(event.type)) this.push({type: 'event', at: this.now(), event});
  }

  recordSnapshot(turn: number, phase: 'before' | 'after', id: string): void {
    this.push({type: 'snapshot', at: this.now(), turn, phase, id});
  }

  recordUndo(turn: number): void {
    this.push({type: 'undo', at: this.now(), turn});
  }

  recordRewind(turn: number, history: readonly Message[]): void {
    this.push({type: 'rewind', at: this.now(), turn, history: history.filter(m => m.type !== 'system')});
  }

  recordCompaction(history: Message[], summary: string): void {
    // System prompts are rebuilt on every start; the log keeps the conversation only.
    this.push({type: 'compaction', at: this.now(), history: history.filter(m => m.type !== 'system'), summary});
  }

  /** Records an event and, where one is due, flushes before the loop may go on. */
  async observe(event: AgentEvent): Promise<void> {
    this.recordEvent(event);
    if (FLUSH_BEFORE.has(event.type)) await this.flush();
  }

  /** Appends everything recorded so far and fsyncs it. Flushes are serialised. */
  flush(): Promise<void> {
    const next = this.writing.then(() => this.write());
    // A failed flush must not poison the ones after it; the caller of this one sees the error.
    this.writing = next.catch(() => {});
    return next;
  }

  async close(): Promise<void> {
    await this.flush();
    await this.writing;
    const handle = this.handle;
    this.handle = null;
    await handle?.close();
  }

  private push(record: SessionRecord): void {
    this.pending.push(this.redact(JSON.stringify(record)) + '\n');
  }

  private async write(): Promise<void> {
    if (this.pending.length === 0) return;
    const handle = await this.fileHandle();
    const data = this.pending.join('');
    this.pending = [];
    await handle.appendFile(data);
    await handle.datasync();
  }

  private async fileHandle(): Promise<FileHandle> {
    if (this.handle) return this.handle;
    await mkdir(join(this.path, '..'), {recursive: true, mode: 0o700});
    const handle = await open(this.path, 'a+', 0o600);
    const {size} = await handle.stat();
    if (size > 0) {
      // A log torn by a kill ends mid-line; start on a fresh line so the next record is whole.
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) await handle.appendFile('\n');
    }
    if (this.header) {
      await handle.appendFile(this.redact(JSON.stringify(this.header)) + '\n');
      this.header = null;
    }
    this.handle = handle;
    return handle;
  }
}
