import {overwriteLines} from '../core/terminal-text.js';
import type {UiInput} from './types.js';

/** Streamed output kept per tool call for its badge: the tail a person can read. */
export const outputTailChars = 4096;

/**
 * Joins runs of deltas of the same kind into one, so a frame's worth of tokens (thousands when a
 * server sends at full speed) is folded once instead of once per token. Folding the result gives
 * the same text, reasoning and output as folding the inputs; a run of text deltas may be cut into
 * fewer, larger transcript blocks. Reasoning keeps the time of its first delta (when thinking
 * started), text and output the last.
 */
export function coalesceDeltas(inputs: ReadonlyArray<UiInput>): Array<UiInput> {
  const out: Array<UiInput> = [];
  for (const input of inputs) {
    const last = out.at(-1);
    if (last?.type === 'text-delta' && input.type === 'text-delta') {
      out[out.length - 1] = {type: 'text-delta', text: last.text + input.text, ...atOf(input.at ?? last.at)};
    } else if (last?.type === 'reasoning-delta' && input.type === 'reasoning-delta') {
      out[out.length - 1] = {type: 'reasoning-delta', text: last.text + input.text, ...atOf(last.at ?? input.at)};
    } else if (last?.type === 'tool-output' && input.type === 'tool-output' && last.id === input.id) {
      out[out.length - 1] = {type: 'tool-output', id: input.id, chunk: joinOutput(last.chunk, input.chunk).slice(-outputTailChars)};
    } else {
      out.push(input);
    }
  }
  return out;
}

/**
 * Two chunks of a command's output as one, their CRs applied first (a burst of progress redraws
 * would otherwise fill the kept tail and push out the lines before it). A CR in the first line
 * still overwrites the line the output so far ends with, so the joined chunk starts with one.
 */
function joinOutput(before: string, after: string): string {
  const joined = before + after;
  const lineEnd = joined.indexOf('\n');
  const firstLine = (lineEnd === -1 ? joined : joined.slice(0, lineEnd)).replace(/\r+$/, '');
  return `${firstLine.includes('\r') ? '\r' : ''}${overwriteLines(joined)}`;
}

function atOf(at: number | undefined): {at?: number} {
  return at === undefined ? {} : {at};
}

