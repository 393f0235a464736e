/**
 * What an attempt's end means: whether a failed request is asked again, what is said when it is
 * not, and what an error inside the stream or skipped chunks mean. Pure.
 */
import {streamErrorKind, type Failure} from './errors.js';
import {readContextRefusal} from './refusal.js';

/** Longest `Retry-After` nib will sit through; beyond it the person should decide. */
const MAX_RETRY_AFTER_MS = 60_000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 8_000;

export type RetryState = {
  /** 1 for the first try. */
  attempt: number;
  maxAttempts: number;
  /** Something the model said has reached the person. */
  hasOutput: boolean;
  /** The request still carries `stream_options`. */
  sendsStreamOptions: boolean;
  /** Jitter source in [0, 1). */
  random: () => number;
};

/** The wait before the next attempt, 'without-stream-options', or null for no retry. */
export function retryDecision(failure: Failure, state: RetryState): number | 'without-stream-options' | null {
  if (failure.aborted) return null;
  if (failure.rejectsStreamOptions && state.sendsStreamOptions) return 'without-stream-options';
  // After the first token a retry would repeat text the person has already seen.
  if (!failure.retryable || state.hasOutput || state.attempt >= state.maxAttempts) return null;
  if (failure.retryAfterMs !== undefined) {
    return failure.retryAfterMs > MAX_RETRY_AFTER_MS ? null : failure.retryAfterMs;
  }
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (state.attempt - 1));
  // Jitter spreads clients that failed together so they do not come back together.
  return Math.round(ceiling * (0.5 + state.random() * 0.5));
}

/** What the person is told once nib stops asking: a wait too long to sit through is said, with its length. */
export function giveUpMessage(failure: Failure, attempt: number): string {
  if (failure.retryAfterMs !== undefined && failure.retryAfterMs > MAX_RETRY_AFTER_MS) {
    return `${failure.message} (the server asks to wait ${waitText(failure.retryAfterMs)}, longer than nib waits by itself: try again then)`;
  }
  return failure.retryable && attempt > 1 ? `${failure.message} (gave up after ${attempt} attempts)` : failure.message;
}

/** "45 s", "12 min", "2 h". */
function waitText(ms: number): string {
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  return ms < 7_200_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 3_600_000)} h`;
}

/**
 * An error object the server sent inside a 200 stream (it can fail after starting). The refusal
 * a 400 would have carried, some servers send after the 200: the loop learns the window from it
 * and compacts, as it does for the 400, never retried, as there (a rate limit's "too many tokens
 * per minute" is not one). Names nib has not met are retried, as every in-stream error was before.
 */
export function midStreamFailure(baseURL: string, error: string, body: Record<string, unknown> | null, status: number | null): Failure {
  const message = `${baseURL} reported an error mid-stream: ${error}`;
  const kind = streamErrorKind(body, status);
  const said = typeof body?.message === 'string' ? body.message : error;
  const refusal = kind === 'transient' ? null : readContextRefusal(body ?? {}, said);
  if (refusal) return {message, retryable: false, contextRefusal: refusal};
  return {message, retryable: kind !== 'refused'};
}

/**
 * Chunks that were not JSON are skipped so the rest of the answer survives, but the answer may
 * lack what they held, and only the person can judge that. Said for the attempt whose turn is
 * kept (a retried one showed nothing); null when none was skipped.
 */
export function skippedChunksNote(count: number, baseURL: string): string | null {
  if (count === 0) return null;
  const from = `of the stream from ${baseURL}`;
  const what = count === 1 ? `1 chunk ${from} was not JSON and was skipped` : `${count} chunks ${from} were not JSON and were skipped`;
  return `${what}; the answer may be missing a piece`;
}
