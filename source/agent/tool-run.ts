import type {Decision} from '../core/events.js';
import {errorMessage} from '../core/result.js';
import type {Tool, ToolContext, ToolResult} from '../core/tool.js';

/** Starts a tool run and hands its output over as it arrives (bash streams; others finish). */
export function startRun(tool: Tool, args: unknown, decision: Decision, ctx: ToolContext, signal: AbortSignal) {
  const output = new OutputQueue();
  const runCtx: ToolContext = {...ctx, onOutput: chunk => output.push(chunk)};
  const running = (async (): Promise<ToolResult> => {
    try {
      return decision.kind === 'edit'
        ? await tool.runEdited!(args, decision.text, runCtx, signal)
        : await tool.run(args, runCtx, signal);
    } catch (error) {
      // A throwing tool is a bug in nib; the model still gets an answer it can work with.
      return {isError: true, code: 'tool-crashed', content: `${tool.name} failed unexpectedly: ${errorMessage(error)}`};
    }
  })();
  return {running, chunks: output.drain(running)};
}

/** A command's result as run in the sandbox: its line on screen says so. */
export function sandboxedResult(result: ToolResult): ToolResult {
  return result.detail ? {...result, detail: {...result.detail, summary: `${result.detail.summary} · sandboxed`}} : result;
}

/** Runs a tool step; a throw (a tool bug) becomes `fallback` instead of ending the turn. */
export async function guard<T>(step: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await step();
  } catch {
    // A throwing tool is a bug in nib, not something the model or the person can act on; the
    // caller turns the fallback into a result the model sees.
    return fallback;
  }
}

export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<{ok: true; value: T} | {ok: false}> {
  if (signal.aborted) return Promise.resolve({ok: false});
  return new Promise(resolve => {
    const onAbort = () => resolve({ok: false});
    signal.addEventListener('abort', onAbort, {once: true});
    promise.then(
      value => {
        signal.removeEventListener('abort', onAbort);
        resolve({ok: true, value});
      },
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve({ok: false});
      },
    );
  });
}

/**
 * Tool output arrives through a callback while `run` is pending; the generator can only yield
 * from its own body, so chunks wait here until it pulls them.
 */
class OutputQueue {
  private chunks: string[] = [];
  private wake: (() => void) | undefined;

  push(chunk: string): void {
    this.chunks.push(chunk);
    this.wake?.();
  }

  async *drain(done: Promise<unknown>): AsyncGenerator<string> {
    let finished = false;
    const finish = () => {
      finished = true;
      this.wake?.();
    };
    done.then(finish, finish);
    while (true) {
      while (this.chunks.length > 0) yield this.chunks.shift()!;
      if (finished) return;
      await new Promise<void>(resolve => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}
