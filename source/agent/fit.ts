import {clip, compactHistory, SUMMARY_SYSTEM, type CompactResult} from './compact.js';
import type {ContextTracker} from './context.js';
import type {Message} from '../core/messages.js';
import type {ChatProvider} from '../core/chat.js';

/**
 * Making the next request fit the window before it is sent, cheapest step first:
 *   1. shorten large tool outputs of earlier turns (re-readable, and most of the weight);
 *   2. summarise older turns, in parts when the transcript is longer than one request holds;
 *   3. shorten the tool outputs of the current turn too.
 * The caller checks the result with the tracker: when even that does not fit, it does not send.
 */

/** What a shortened tool output keeps, in characters: first the roomy cut, then the tight one. */
const SHORT_STEPS = [4_000, 1_000, 300] as const;

export type FitOptions = {
  provider: ChatProvider;
  history: readonly Message[];
  tracker: ContextTracker;
  signal: AbortSignal;
};

export async function fitHistory(options: FitOptions): Promise<CompactResult> {
  const {tracker, history} = options;
  const budget = tracker.budget;
  if (budget === null) return compactHistory({provider: options.provider, history, keepTokens: tracker.keepTokens, signal: options.signal});
  const fits = (messages: readonly Message[]) => tracker.estimate(messages) <= budget;
  const lastUser = history.findLastIndex(message => message.type === 'user');

  // Asked to compact (past the fill threshold, or over the budget): shortening that changed
  // something and fits is enough; otherwise older turns are summarised.
  const shortened = shorten(history, lastUser, fits);
  if (shortened.count > 0 && fits(shortened.history)) return done(shortened.history, '', 0, shortened.history.length, shortened.count);

  const summarised = await compactHistory({
    provider: options.provider,
    history: shortened.history,
    keepTokens: Math.min(tracker.keepTokens, Math.floor(budget / 2)),
    ...summaryRoom(tracker),
    signal: options.signal,
  });
  if (!summarised.ok && summarised.error.code !== 'nothing-to-compact') return summarised;
  const after = summarised.ok ? summarised.value.history : shortened.history;
  if (fits(after)) {
    if (summarised.ok) return {ok: true, value: {...summarised.value, shortened: shortened.count}};
    // Nothing changed: "nothing to compact" is not worth a line, and the loop says none.
    return shortened.count > 0 ? done(after, '', 0, after.length, shortened.count) : summarised;
  }
  const recent = shorten(after, after.length, fits);
  const count = shortened.count + recent.count;
  if (summarised.ok) return {ok: true, value: {...summarised.value, history: recent.history, shortened: count}};
  if (count > 0) return done(recent.history, '', 0, recent.history.length, count);
  return summarised;
}

function done(history: Message[], summary: string, summarised: number, kept: number, shortened: number): CompactResult {
  return {ok: true, value: {history, summary, summarised, kept, shortened}};
}

/**
 * Tool outputs before `end`, oldest first, cut to their head and tail in ever tighter steps
 * until the history fits. The model can run the tool again for what it still needs.
 */
function shorten(history: readonly Message[], end: number, fits: (messages: readonly Message[]) => boolean): {history: Message[]; count: number} {
  const result = [...history];
  const cut = new Set<number>();
  for (const max of SHORT_STEPS) {
    for (let index = 0; index < end; index++) {
      if (fits(result)) return {history: result, count: cut.size};
      const message = result[index]!;
      if (message.type !== 'tool-result' || message.content.length <= max) continue;
      result[index] = {...message, content: `${clip(message.content, max)}\n[shortened by nib to fit the model's context window; run the tool again for the rest]`};
      cut.add(index);
    }
  }
  return {history: result, count: cut.size};
}

/**
 * How much transcript one summary request may carry in the window: it also holds its own
 * instructions and room for the summary it asks for. Nothing when the window is unknown.
 */
export function summaryRoom(tracker: ContextTracker): {transcriptMaxChars?: number} {
  const budget = tracker.budget;
  if (budget === null) return {};
  const transcriptTokens = budget - tracker.scale(Math.ceil(SUMMARY_SYSTEM.length / 4) + 200);
  return {transcriptMaxChars: Math.max(1_000, Math.floor(((transcriptTokens * 4) / tracker.scale(1)) * 0.9))};
}
