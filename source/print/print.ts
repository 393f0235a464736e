import type {Config} from '../agent/config/config.js';
import type {AgentSession, SessionEvent} from '../agent/session/agent-session.js';
import type {AgentEvent} from '../core/events.js';
import {showInvisible, toTerminalText} from '../core/terminal-text.js';
import {compactionNote} from '../agent/window-text.js';
import {firstLine} from '../core/text.js';

/** Where print mode writes. stdout carries the answer (or JSON events) and nothing else. */
export type PrintIO = {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Aborts the turn (SIGINT). */
  signal: AbortSignal;
};

export const EXIT = {ok: 0, failed: 1, interrupted: 130} as const;

/**
 * Runs one prompt through the session and prints what it reports. Returns the exit code: 0 when
 * the model answered, 130 when interrupted, 1 otherwise (provider error, round cap).
 */
export async function runPrint(config: Config, session: AgentSession, prompt: string, io: PrintIO): Promise<number> {
  const out = new CoalescingWriter(io.stdout);
  // What the model or a file says reaches a terminal only as text: an escape sequence in it could
  // retitle the window, write the clipboard (OSC 52) or hide lines. A pipe gets the bytes as sent.
  const answer = isTTY(io.stdout) ? toTerminalText : (text: string) => text;
  const stderr = {write: (text: string) => io.stderr.write(toTerminalText(text))};
  const printer = config.outputFormat === 'json' ? jsonPrinter(out, stderr) : textPrinter(out, stderr, answer);

  // A closed stdout (`nib -p ... | head -1`) ends the run quietly instead of crashing on EPIPE.
  const controller = new AbortController();
  const signal = AbortSignal.any([io.signal, controller.signal]);
  let stdoutClosed = false;
  io.stdout.on('error', () => {
    stdoutClosed = true;
    controller.abort();
  });

  const unsubscribe = session.subscribe((event: SessionEvent) => {
    // The reader went away (`nib -p … | head -1`): it has what it wanted and nobody interrupted,
    // so no "interrupted" line.
    if (event.type === 'turn-end' && stdoutClosed && !io.signal.aborted) return;
    if (event.type === 'notice') return stderr.write(`nib: ${event.text}\n`);
    if (isAgentEvent(event)) printer(event);
  });
  let reason;
  try {
    reason = await session.prompt(prompt, {signal});
  } finally {
    unsubscribe();
  }
  if (stdoutClosed && !io.signal.aborted) reason = 'completed';
  // The answer ends where the model ended it; a terminal still gets its newline for the prompt.
  if (config.outputFormat === 'text' && out.wroteText && !out.endsWithNewline && isTTY(io.stdout)) out.write('\n');
  await out.close();
  if (reason === 'completed') return EXIT.ok;
  if (reason === 'aborted') return EXIT.interrupted;
  return EXIT.failed;
}

const sessionOnly = new Set(['notice', 'busy', 'mode', 'model', 'grants', 'cleared', 'context']);
function isAgentEvent(event: SessionEvent): event is AgentEvent {
  return !sessionOnly.has(event.type);
}

type Printer = (event: AgentEvent) => void;

type TextSink = {write: (text: string) => unknown};

function textPrinter(out: CoalescingWriter, stderr: TextSink, answer: (text: string) => string): Printer {
  // Text said before a tool round and the answer after it would otherwise run together.
  let needsBreak = false;
  return event => {
    switch (event.type) {
      case 'text-delta':
        if (needsBreak && out.wroteText) out.write(out.endsWithNewline ? '\n' : '\n\n');
        needsBreak = false;
        out.write(answer(event.text));
        return;
      case 'tool-call':
        needsBreak = true;
        // The command or path the model chose: nothing in it may hide from the person reading.
        stderr.write(`→ ${showInvisible(`${event.name} ${firstLine(event.keyArg || event.arguments)}`.trimEnd())}\n`);
        return;
      case 'tool-result':
        if (event.isError) stderr.write(`  ✗ ${failureLine(event)}\n`);
        return;
      case 'retry':
        // The provider's message already says when and which attempt.
        stderr.write(`nib: ${event.message}\n`);
        return;
      case 'error':
        stderr.write(`nib: ${event.message}\n`);
        return;
      case 'compaction':
        stderr.write(`nib: ${compactionNote(event)}\n`);
        return;
      case 'turn-end':
        if (event.reason === 'aborted') stderr.write('nib: interrupted\n');
        return;
      default:
        return;
    }
  };
}

/**
 * One JSON object per line. Field names are snake_case and stable: scripts depend on them
 * (documented in README.md).
 */
function jsonPrinter(out: CoalescingWriter, stderr: TextSink): Printer {
  const line = (value: Record<string, unknown>) => out.write(`${JSON.stringify(value)}\n`);
  return event => {
    switch (event.type) {
      case 'text-delta':
      case 'reasoning-delta':
        return line({type: event.type, text: event.text});
      case 'tool-call':
        return line({type: 'tool-call', id: event.id, name: event.name, arguments: event.arguments, ...(event.source ? {source: event.source} : {})});
      case 'tool-start':
        return line({type: 'tool-start', id: event.id, name: event.name});
      case 'tool-result':
        return line({type: 'tool-result', id: event.id, name: event.name, is_error: event.isError, content: event.content});
      case 'retry':
        return line({type: 'retry', attempt: event.attempt, delay_ms: event.delayMs, message: event.message});
      case 'usage':
        return line({
          type: 'usage',
          prompt_tokens: event.usage.promptTokens,
          completion_tokens: event.usage.completionTokens,
          total_tokens: event.usage.totalTokens,
        });
      case 'error':
        stderr.write(`nib: ${event.message}\n`);
        return line({type: 'error', message: event.message, ...(event.code ? {code: event.code} : {})});
      case 'compaction-start':
        return line({type: 'compaction-start', reason: event.reason});
      case 'compaction':
        return line({type: 'compaction', reason: event.reason, summarised: event.summarised, kept: event.kept});
      case 'turn-end':
        return line({type: 'turn-end', reason: event.reason});
      default:
        return;
    }
  };
}

/**
 * A failed command's output starts with whatever it printed first ("(no output)", a banner); its
 * badge summary says what matters: "exit 1 · 2.3 s", "timeout · 120 s". Other tools lead with it.
 */
function failureLine(event: Extract<AgentEvent, {type: 'tool-result'}>): string {
  const detail = event.detail;
  if (detail && (detail.exitCode !== undefined || detail.signal)) return detail.summary;
  return firstLine(event.content);
}


function isTTY(stream: NodeJS.WritableStream): boolean {
  return (stream as {isTTY?: boolean}).isTTY === true;
}

/**
 * Token deltas arrive a few characters at a time; one write per delta costs a syscall each
 * (stdout to a pipe is synchronous). Deltas that arrive in the same tick go out together, so the
 * answer still streams as it arrives.
 */
class CoalescingWriter {
  wroteText = false;
  endsWithNewline = false;
  private pending = '';
  private scheduled = false;

  constructor(private readonly stream: NodeJS.WritableStream) {}

  write(text: string): void {
    if (!text) return;
    this.wroteText = true;
    this.endsWithNewline = text.endsWith('\n');
    this.pending += text;
    if (this.pending.length >= 64 * 1024) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.scheduled = false;
    if (!this.pending) return;
    const text = this.pending;
    this.pending = '';
    this.stream.write(text);
  }

  /** Resolves once everything written has been handed to the OS. */
  close(): Promise<void> {
    this.flush();
    return new Promise(resolve => {
      this.stream.write('', () => resolve());
    });
  }
}
