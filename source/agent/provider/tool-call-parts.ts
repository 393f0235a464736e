/**
 * Tool calls put together from a stream's fragments, pure. Fragments are correlated by non-empty
 * id first (unless the index differs), then by index, and an id-less, index-less fragment
 * continues the latest call until its arguments are complete JSON and a name comes again; a call
 * may arrive whole in one chunk, with object arguments, or with only `""` as arguments.
 */
import type {ToolCall} from '../../core/messages.js';
import {argumentsText, createJsonEnd, isObject, nonEmpty, parseObject, type Json} from './wire.js';

export type CallAssembler = {
  /** One entry of a delta's `tool_calls` (or a legacy `function_call` as `{function}`). */
  add: (fragment: unknown) => void;
  readonly count: number;
  /** The calls as sent back in the history; a call without an id (or with a repeated one) gets `makeId(position)`. */
  finish: (makeId: (position: number) => string) => ToolCall[];
};

type PendingCall = {
  id: string;
  name: string;
  args: string[];
  index: number | undefined;
  /** Whether `args` is one complete JSON value so far. */
  json: ReturnType<typeof createJsonEnd>;
  /** JSON.parse's word on `args`, asked once `json` says it closed (only whitespace may follow). */
  parses?: boolean;
  /** A fragment repeated the name after the arguments were complete: argument text now starts another call. */
  namedAgain: boolean;
};

export function createCallAssembler(): CallAssembler {
  const calls: PendingCall[] = [];

  const complete = (call: PendingCall): boolean => {
    if (!call.json.closed) return false;
    call.parses ??= parseObject(call.args.join('')) !== null;
    return call.parses;
  };

  const findCall = (fragment: Json): PendingCall => {
    const id = nonEmpty(fragment.id);
    // Negative indexes appear from some proxies; they carry no position, so they count as absent.
    const index = typeof fragment.index === 'number' && fragment.index >= 0 ? fragment.index : undefined;
    const fn = isObject(fragment.function) ? fragment.function : {};
    const name = nonEmpty(fn.name);
    const args = fn.arguments;
    const hasArgs = typeof args === 'string' ? args.trim() !== '' : args !== undefined && args !== null;
    const fresh = (callName = ''): PendingCall => {
      const call: PendingCall = {id: id ?? '', name: callName, args: [], index, json: createJsonEnd(), namedAgain: false};
      calls.push(call);
      return call;
    };
    if (id !== undefined) {
      // A different index is another call even when the id repeats: some servers give every
      // parallel call the same id, and only the index tells them apart.
      const byId = calls.findLast(call => call.id === id && (index === undefined || call.index === undefined || call.index === index));
      if (byId) return byId;
      // The id may come after an id-less first fragment at the same index; a call that already
      // has a different id is another call reusing the index (some servers restart at 0).
      const latestAtIndex = index === undefined ? undefined : calls.findLast(call => call.index === index);
      if (latestAtIndex && latestAtIndex.id === '') {
        latestAtIndex.id = id;
        return latestAtIndex;
      }
      return fresh();
    }
    const target = index === undefined ? calls.at(-1) : calls.findLast(call => call.index === index);
    if (!target) return fresh();
    // A different name on a fragment with neither id nor a known index is a new call, not a rename.
    if (name !== undefined && target.name !== '' && target.name !== name && target.args.length > 0) {
      return fresh();
    }
    // With neither id nor index, arguments that are already complete JSON take no more text: a
    // name after them starts the next call (parallel calls to one tool). A name with no arguments
    // may be a continuation that repeats it (Mistral, GLM), so then the argument text after it
    // decides.
    if (index === undefined && target.name !== '' && complete(target)) {
      if (name !== undefined) {
        if (hasArgs) return fresh();
        target.namedAgain = true;
      } else if (hasArgs && target.namedAgain) return fresh(target.name);
    }
    return target;
  };

  const addToolFragment = (fragment: unknown) => {
    if (!isObject(fragment)) return;
    const call = findCall(fragment);
    const fn = isObject(fragment.function) ? fragment.function : {};
    // The first non-empty name wins: continuations repeat it or send "" (Mistral/GLM).
    const name = nonEmpty(fn.name);
    if (name !== undefined && call.name === '') call.name = name;
    const args = fn.arguments;
    const text = typeof args === 'string' ? args : args !== undefined && args !== null ? argumentsText(args) : undefined;
    if (text === undefined) return;
    call.args.push(text);
    call.json.push(text);
  };

  return {
    add: addToolFragment,
    get count() {
      return calls.length;
    },
    finish(makeId) {
      const ids = new Set<string>();
      return calls.map((call, position) => {
        const raw = call.args.join('');
        // Two calls with one id would have their results mixed up, on screen and on the server.
        const id = call.id !== '' && !ids.has(call.id) ? call.id : makeId(position);
        ids.add(id);
        // A zero-argument call often arrives as "" (or nothing): that means {}, and "" would be
        // rejected by strict servers when the call is sent back in the history.
        return {id, name: call.name, arguments: raw.trim() === '' ? '{}' : raw};
      });
    },
  };
}
