import {describe, expect, test} from 'vitest';
import type {AgentEvent, ApprovalRequest} from '../../source/core/events.js';
import {coalesceDeltas, initialState, reduce, type UiInput, type UiState} from '../../source/state/reducer.js';
import {splitAtSafePoint} from '../../source/state/split.js';

const start = (): UiState => initialState({model: 'm', mode: 'ask'});
const fold = (events: UiInput[], state = start()): UiState => events.reduce(reduce, state);
const strip = (state: UiState) => state.transcript.map(({id: _id, ...rest}) => rest);

const request = (id: string, name = 'edit'): ApprovalRequest => ({
  id,
  name,
  args: {path: 'a.ts'},
  preview: {title: `${name} a.ts`, outside: false},
});

describe('splitAtSafePoint', () => {
  test('no cut in a single unfinished paragraph', () => {
    expect(splitAtSafePoint('Hello wor')).toBe(0);
    expect(splitAtSafePoint('Hello\nworld')).toBe(0);
  });
  test('cuts after a blank line', () => {
    const text = 'First.\n\nSecond';
    expect(text.slice(0, splitAtSafePoint(text))).toBe('First.\n\n');
  });
  test('a blank line inside a fence is not a cut', () => {
    expect(splitAtSafePoint('```ts\nconst a = 1;\n\nconst b')).toBe(0);
  });
  test('cuts after a closing fence, and after the last safe point', () => {
    const text = 'Intro\n\n```ts\na\n\nb\n```\nmore';
    expect(text.slice(0, splitAtSafePoint(text))).toBe('Intro\n\n```ts\na\n\nb\n```\n');
  });
  test('a shorter or different fence does not close', () => {
    expect(splitAtSafePoint('````\na\n```\n\nb')).toBe(0);
    expect(splitAtSafePoint('~~~\na\n```\n\nb')).toBe(0);
  });
  test('inline triple backticks are not a fence', () => {
    const text = '```a``` b\n\nc';
    expect(text.slice(0, splitAtSafePoint(text))).toBe('```a``` b\n\n');
  });
  test('a blank line still streaming is not a cut', () => {
    expect(splitAtSafePoint('a\n  ')).toBe(0);
  });
});

describe('reduce: one event kind at a time', () => {
  test('turn-start adds the prompt; busy follows the session, not the turn', () => {
    const state = fold([{type: 'busy', busy: true}, {type: 'turn-start', prompt: 'fix it', at: 1000}]);
    expect(strip(state)).toEqual([{kind: 'user', text: 'fix it'}]);
    expect(state.busy).toBe(true);
    // A turn's end is not the session's: it may still be snapshotting, and a compaction has no turn.
    expect(fold([{type: 'turn-end', reason: 'completed', at: 2}], state).busy).toBe(true);
    expect(fold([{type: 'busy', busy: false}], state).busy).toBe(false);
    expect(state.now).toBe(1000);
  });

  test('text-delta keeps an open block live', () => {
    const state = fold([{type: 'text-delta', text: 'Hel'}, {type: 'text-delta', text: 'lo'}]);
    expect(state.live.text).toBe('Hello');
    expect(state.transcript).toEqual([]);
  });

  test('text-delta moves finished blocks to the transcript while streaming', () => {
    const state = fold([
      {type: 'text-delta', text: '# Title\n\nSome '},
      {type: 'text-delta', text: 'text.\n\n```js\nx()\n\ny()\n'},
    ]);
    expect(strip(state)).toEqual([
      {kind: 'assistant', text: '# Title'},
      {kind: 'assistant', text: 'Some text.'},
    ]);
    expect(state.live.text).toBe('```js\nx()\n\ny()\n');
    const closed = reduce(state, {type: 'text-delta', text: '```\nafter'});
    expect(strip(closed).at(-1)).toEqual({kind: 'assistant', text: '```js\nx()\n\ny()\n```'});
    expect(closed.live.text).toBe('after');
  });

  test('streaming one character at a time cuts at every safe point and loses nothing', () => {
    const answer = 'Para one\nline two\n\n- a\n- b\n\n```py\nprint(1)\n\n```\n\nEnd.';
    const byChar = fold([...answer].map(text => ({type: 'text-delta' as const, text})));
    expect(strip(byChar)).toEqual([
      {kind: 'assistant', text: 'Para one\nline two'},
      {kind: 'assistant', text: '- a\n- b'},
      {kind: 'assistant', text: '```py\nprint(1)\n\n```'},
    ]);
    expect(byChar.live.text).toBe('End.');
  });

  test('reasoning-delta streams, then folds to one line with its duration when the answer starts', () => {
    const state = fold([
      {type: 'request-start', round: 1, at: 10_000},
      {type: 'reasoning-delta', text: 'hmm', at: 10_000},
      {type: 'reasoning-delta', text: ' yes', at: 14_000},
    ]);
    expect(state.live.reasoning).toBe('hmm yes');
    const answered = reduce(state, {type: 'text-delta', text: 'Answer', at: 14_200});
    expect(answered.live.reasoning).toBe('');
    expect(strip(answered)).toEqual([{kind: 'reasoning', durationMs: 4200}]);
  });

  test('reasoning without any time folds with an unknown duration', () => {
    const state = fold([{type: 'reasoning-delta', text: 'x'}, {type: 'text-delta', text: 'y'}]);
    expect(strip(state)).toEqual([{kind: 'reasoning', durationMs: null}]);
  });

  test('retry adds a notice: the provider\'s message, which says when, once', () => {
    const state = fold([{type: 'retry', attempt: 2, delayMs: 2000, message: '429 Too Many Requests; retrying in 2 s (attempt 2 of 5)'}]);
    expect(strip(state)).toEqual([{kind: 'notice', text: '429 Too Many Requests; retrying in 2 s (attempt 2 of 5)'}]);
  });

  test('message changes nothing on screen', () => {
    const before = start();
    expect(reduce(before, {type: 'message', message: {type: 'user', content: 'x'}})).toBe(before);
  });

  test('tool-call ends the open text and adds a pending tool with its key argument', () => {
    const state = fold([
      {type: 'text-delta', text: 'Let me look.'},
      {type: 'tool-call', id: 'c1', name: 'read', arguments: '{"path":"src/a.ts"}', keyArg: 'src/a.ts'},
    ]);
    expect(strip(state)).toEqual([{kind: 'assistant', text: 'Let me look.'}]);
    expect(state.live.text).toBe('');
    expect(state.live.tools).toEqual([{callId: 'c1', name: 'read', keyArg: 'src/a.ts', status: 'pending', output: ''}]);
  });

  test('approval-request waits, once, however often it is reported', () => {
    const req = request('c1');
    const state = fold([
      {type: 'tool-call', id: 'c1', name: 'edit', arguments: '{"path":"a.ts"}', keyArg: 'a.ts'},
      {type: 'approval-request', request: req},
      {type: 'approval-request', request: req},
    ]);
    expect(state.approvals).toEqual([req]);
    expect(state.live.tools[0]).toMatchObject({status: 'waiting-approval', wasAsked: true});
  });

  test('approval-decision: yes, always, no with a reason, edit', () => {
    const asked = (name = 'edit') =>
      fold([
        {type: 'tool-call', id: 'c1', name, arguments: '{}'},
        {type: 'approval-request', request: request('c1', name)},
      ]);
    const yes = reduce(asked(), {type: 'approval-decision', id: 'c1', decision: {kind: 'yes'}});
    expect(yes.approvals).toEqual([]);
    expect(yes.live.tools[0]!.status).toBe('pending');
    const always = reduce(asked('bash'), {type: 'approval-decision', id: 'c1', decision: {kind: 'always'}});
    const no = reduce(asked(), {type: 'approval-decision', id: 'c1', decision: {kind: 'no', feedback: 'not that file'}});
    expect(no.live.tools[0]).toMatchObject({status: 'denied', summary: 'denied: not that file'});
    const edit = reduce(asked(), {type: 'approval-decision', id: 'c1', decision: {kind: 'edit', text: 'x'}});
    expect(edit.live.tools[0]).toMatchObject({status: 'pending', edited: true});
  });

  test('an edited command is the one its badge shows; an edited file keeps its path', () => {
    const command: ApprovalRequest = {id: 'c1', name: 'bash', args: {command: 'echo hi'}, preview: {title: 'bash echo hi', outside: false, command: {command: 'echo hi', cwd: '/w'}}};
    const ran = fold([
      {type: 'tool-call', id: 'c1', name: 'bash', arguments: '{"command":"echo hi"}', keyArg: 'echo hi'},
      {type: 'approval-request', request: command},
      {type: 'approval-decision', id: 'c1', decision: {kind: 'edit', text: 'echo edited'}},
    ]);
    expect(ran.live.tools[0]).toMatchObject({keyArg: 'echo edited', edited: true});
    const file = fold([
      {type: 'tool-call', id: 'c1', name: 'write', arguments: '{"path":"a.ts"}', keyArg: 'a.ts'},
      {type: 'approval-request', request: request('c1', 'write')},
      {type: 'approval-decision', id: 'c1', decision: {kind: 'edit', text: 'new content'}},
    ]);
    expect(file.live.tools[0]).toMatchObject({keyArg: 'a.ts', edited: true});
    // A resumed session's log keeps the decision, not the request.
    const replayed = fold([
      {type: 'tool-call', id: 'c1', name: 'bash', arguments: '{"command":"echo hi"}', keyArg: 'echo hi'},
      {type: 'approval-decision', id: 'c1', decision: {kind: 'edit', text: 'echo edited'}},
    ]);
    expect(replayed.live.tools[0]).toMatchObject({keyArg: 'echo edited', edited: true});
  });

  test('a progress line redrawn with CR keeps its latest state, however the chunks cut it', () => {
    const chunks = ['fetching\n', '\rdownloading   1%', '\rdownloading   2%\r', 'downloading  40%', ' \u001B[2Jdone\r\n'];
    const state = fold([
      {type: 'tool-call', id: 'c1', name: 'bash', arguments: '{"command":"dl"}', keyArg: 'dl'},
      {type: 'tool-start', id: 'c1', name: 'bash', at: 1},
      ...chunks.slice(0, 4).map(chunk => ({type: 'tool-output', id: 'c1', chunk}) as const),
    ]);
    expect(state.live.tools[0]!.output).toBe('fetching\ndownloading  40%');
    const done = reduce(state, {type: 'tool-output', id: 'c1', chunk: chunks[4]!});
    // Escape sequences still never reach the screen; CR LF is a line end.
    expect(done.live.tools[0]!.output).toBe('fetching\ndownloading  40% [2Jdone\n');
  });

  test('tool-start runs the tool from the event time', () => {
    const state = fold([
      {type: 'tool-call', id: 'c1', name: 'bash', arguments: '{"command":"npm test"}', keyArg: 'npm test'},
      {type: 'tool-start', id: 'c1', name: 'bash', at: 5000},
    ]);
    expect(state.live.tools[0]).toMatchObject({status: 'running', startedAt: 5000, keyArg: 'npm test'});
  });

  test('tool-output keeps only a tail', () => {
    const state = fold([
      {type: 'tool-call', id: 'c1', name: 'bash', arguments: '{"command":"yes"}', keyArg: 'yes'},
      {type: 'tool-output', id: 'c1', chunk: 'a'.repeat(10_000)},
      {type: 'tool-output', id: 'c1', chunk: 'END\n'},
    ]);
    const output = state.live.tools[0]!.output;
    expect(output.endsWith('END\n')).toBe(true);
    expect(output.length).toBeLessThanOrEqual(4096);
  });

  test('tool-result moves the call to the transcript with its summary', () => {
    const state = fold([
      {type: 'tool-call', id: 'c1', name: 'read', arguments: '{"path":"a"}', keyArg: 'a'},
      {type: 'tool-start', id: 'c1', name: 'read', at: 100},
      {type: 'tool-result', id: 'c1', name: 'read', isError: false, content: '1\tx', detail: {summary: 'read 1 line'}, at: 150},
    ]);
    expect(state.live.tools).toEqual([]);
    expect(strip(state)).toEqual([
      {
        kind: 'tool',
        tool: {
          callId: 'c1',
          name: 'read',
          keyArg: 'a',
          status: 'done',
          startedAt: 100,
          endedAt: 150,
          output: '',
          summary: 'read 1 line',
          detail: {summary: 'read 1 line'},
        },
      },
    ]);
  });

  test('a failed tool shows the first line of its error', () => {
    const state = fold([
      {type: 'tool-call', id: 'c1', name: 'edit', arguments: '{"path":"a"}', keyArg: 'a'},
      {type: 'tool-result', id: 'c1', name: 'edit', isError: true, content: 'old text not found\nmore detail', at: 1},
    ]);
    expect(strip(state)[0]).toMatchObject({kind: 'tool', tool: {status: 'failed', summary: 'old text not found'}});
  });

  test('a denied tool stays denied after its result', () => {
    const state = fold([
      {type: 'tool-call', id: 'c1', name: 'bash', arguments: '{"command":"rm -rf /"}', keyArg: 'rm -rf /'},
      {type: 'approval-request', request: request('c1', 'bash')},
      {type: 'approval-decision', id: 'c1', decision: {kind: 'no'}},
      {type: 'tool-result', id: 'c1', name: 'bash', isError: true, content: 'The person declined.', at: 1},
    ]);
    expect(strip(state)[0]).toMatchObject({kind: 'tool', tool: {status: 'denied', summary: 'denied'}});
  });

  test('usage adds up and remembers the latest prompt size', () => {
    const state = fold([
      {type: 'usage', usage: {promptTokens: 100, completionTokens: 10, totalTokens: 110}},
      {type: 'usage', usage: {promptTokens: 150, completionTokens: 5, totalTokens: 155}},
    ]);
    expect(state.usage).toEqual({promptTokens: 250, completionTokens: 15, lastPromptTokens: 150});
  });

  test('error keeps the partial text, then shows the error', () => {
    const state = fold([{type: 'text-delta', text: 'Partial'}, {type: 'error', message: 'connection reset'}]);
    expect(strip(state)).toEqual([
      {kind: 'assistant', text: 'Partial'},
      {kind: 'error', text: 'connection reset'},
    ]);
  });

  test('turn-end completed flushes the answer', () => {
    const state = fold([
      {type: 'turn-start', prompt: 'hi', at: 1},
      {type: 'text-delta', text: 'Hello!'},
      {type: 'turn-end', reason: 'completed', at: 2},
    ]);
    expect(strip(state)).toEqual([
      {kind: 'user', text: 'hi'},
      {kind: 'assistant', text: 'Hello!'},
    ]);
    expect(state.busy).toBe(false);
    expect(state.live.text).toBe('');
  });

  test('turn-end aborted keeps the partial answer, marks it interrupted and stops tools', () => {
    const state = fold([
      {type: 'turn-start', prompt: 'go', at: 1},
      {type: 'text-delta', text: 'Working'},
      {type: 'tool-call', id: 'c1', name: 'bash', arguments: '{"command":"sleep 9"}', keyArg: 'sleep 9'},
      {type: 'tool-start', id: 'c1', name: 'bash', at: 2},
      {type: 'turn-end', reason: 'aborted', at: 3},
    ]);
    expect(strip(state).map(item => item.kind)).toEqual(['user', 'assistant', 'tool', 'notice']);
    expect(strip(state)[2]).toMatchObject({tool: {status: 'failed', summary: 'interrupted', endedAt: 3}});
    expect(strip(state)[3]).toEqual({kind: 'notice', text: 'interrupted'});
    expect(state.live.tools).toEqual([]);
    expect(state.busy).toBe(false);
  });

  test('turn-end max-rounds says why it stopped', () => {
    const state = fold([{type: 'turn-end', reason: 'max-rounds', at: 1}]);
    expect(strip(state)[0]).toMatchObject({kind: 'notice'});
  });
});

describe('reduce: UI actions', () => {
  test('tick advances the clock, never backwards', () => {
    const state = fold([{type: 'tick', at: 500}, {type: 'tick', at: 400}]);
    expect(state.now).toBe(500);
  });

  test('queue and dequeue prompts in order', () => {
    const state = fold([
      {type: 'queue-prompt', text: 'a'},
      {type: 'queue-prompt', text: 'b'},
      {type: 'dequeue-prompt'},
    ]);
    expect(state.queue).toEqual(['b']);
  });

  test('mode, model, grants and context are what the session last reported', () => {
    const state = fold([
      {type: 'mode', mode: 'auto-edit'},
      {type: 'model', model: 'gpt-x'},
      {type: 'grants', tools: ['bash'], rules: ['bash(ls)']},
      {type: 'context', tokens: 1200, window: 4096},
    ]);
    expect(state).toMatchObject({mode: 'auto-edit', model: 'gpt-x', alwaysTools: ['bash'], alwaysRules: ['bash(ls)'], context: {tokens: 1200, window: 4096}});
    // An "always" answer alone changes nothing: the grant is the session's to report.
    const answered = fold([
      {type: 'tool-call', id: 'c1', name: 'bash', arguments: '{}'},
      {type: 'approval-request', request: request('c1', 'bash')},
      {type: 'approval-decision', id: 'c1', decision: {kind: 'always'}},
    ]);
    expect(answered.alwaysTools).toEqual([]);
  });

  test('another conversation (/clear, /resume) starts its tokens in and out from zero; a resumed one replays its own', () => {
    const used = fold([{type: 'usage', usage: {promptTokens: 7000, completionTokens: 150, totalTokens: 7150}}]);
    expect(used.usage.promptTokens).toBe(7000);
    const cleared = reduce(used, {type: 'cleared'});
    expect(cleared.usage).toEqual({promptTokens: 0, completionTokens: 0, lastPromptTokens: 0});
    const resumed = reduce(cleared, {type: 'usage', usage: {promptTokens: 3000, completionTokens: 40, totalTokens: 3040}});
    expect(resumed.usage).toEqual({promptTokens: 3000, completionTokens: 40, lastPromptTokens: 3000});
  });

  test('notice, cleared, and overlays', () => {
    const state = fold([{type: 'notice', text: 'hello'}]);
    expect(strip(state)).toEqual([{kind: 'notice', text: 'hello'}]);
    const cleared = reduce(state, {type: 'cleared'});
    expect(cleared.transcript).toEqual([]);
    expect(cleared.epoch).toBe(1);
    const asked = reduce(cleared, {type: 'show-overlay', overlay: {kind: 'picker', sessions: [], cancelLabel: 'new session'}});
    expect(asked.overlay?.kind).toBe('picker');
    expect(reduce(asked, {type: 'close-overlay'}).overlay).toBeNull();
  });

  test('a compaction becomes a notice that says why', () => {
    const state = fold([{type: 'compaction', reason: 'overflow', summary: 's', summarised: 12, kept: 3, history: []}]);
    expect(strip(state)).toEqual([{kind: 'notice', text: 'Context too long for the model: compacted 12 older messages into a summary (the session log keeps them all).'}]);
  });

  test('a running compaction is live until it is done, fails, the request goes out or the turn ends', () => {
    const running = fold([{type: 'turn-start', prompt: 'x', at: 5}, {type: 'compaction-start', reason: 'overflow', at: 7}]);
    expect(running.live.compacting).toEqual({reason: 'overflow', since: 7});
    const ends: UiInput[] = [
      {type: 'compaction', reason: 'overflow', summary: 's', summarised: 2, kept: 1, history: []},
      {type: 'error', code: 'compaction', message: 'the summary failed'},
      {type: 'request-start', round: 2, at: 9},
      {type: 'turn-end', reason: 'aborted', at: 9},
    ];
    for (const end of ends) expect(reduce(running, end).live.compacting).toBeNull();
  });
});

describe('reduce: sequences', () => {
  test('a whole turn: answer, read, approved edit, answer', () => {
    const state = fold([
      {type: 'turn-start', prompt: 'fix the bug', at: 1000},
      {type: 'request-start', round: 1, at: 1000},
      {type: 'text-delta', text: 'I will read the file.'},
      {type: 'tool-call', id: 'r', name: 'read', arguments: '{"path":"a.ts"}', keyArg: 'a.ts'},
      {type: 'tool-start', id: 'r', name: 'read', at: 1100},
      {type: 'tool-result', id: 'r', name: 'read', isError: false, content: '1\tx', detail: {summary: 'read 1 line'}, at: 1110},
      {type: 'request-start', round: 2, at: 1200},
      {type: 'tool-call', id: 'e', name: 'edit', arguments: '{"path":"a.ts","old":"x","new":"y"}', keyArg: 'a.ts'},
      {type: 'approval-request', request: request('e'), at: 1300},
      {type: 'approval-decision', id: 'e', decision: {kind: 'yes'}},
      {type: 'tool-start', id: 'e', name: 'edit', at: 2000},
      {type: 'tool-result', id: 'e', name: 'edit', isError: false, content: 'ok', detail: {summary: '+1 −1'}, at: 2010},
      {type: 'request-start', round: 3, at: 2100},
      {type: 'text-delta', text: 'Fixed.\n\nDone'},
      {type: 'usage', usage: {promptTokens: 10, completionTokens: 3, totalTokens: 13}},
      {type: 'turn-end', reason: 'completed', at: 2200},
    ]);
    expect(
      strip(state).map(item => (item.kind === 'tool' ? `tool ${item.tool.name} ${item.tool.status} ${item.tool.summary}` : item.kind)),
    ).toEqual(['user', 'assistant', 'tool read done read 1 line', 'tool edit done +1 −1', 'assistant', 'assistant']);
    expect(state.transcript.map(item => item.id)).toEqual(['t1', 't2', 't3', 't4', 't5', 't6']);
    expect(state).toMatchObject({approvals: [], live: {text: '', tools: []}});
  });

  test('finished items never change as later events arrive', () => {
    const first = fold([
      {type: 'turn-start', prompt: 'a', at: 1},
      {type: 'text-delta', text: 'one\n\ntwo'},
    ]);
    const later = fold([{type: 'text-delta', text: '\n\nthree'}, {type: 'turn-end', reason: 'completed', at: 2}], first);
    expect(later.transcript.slice(0, first.transcript.length)).toEqual(first.transcript);
    first.transcript.forEach((item, index) => expect(later.transcript[index]).toBe(item));
  });

  test('the state passed in is never mutated', () => {
    const before = fold([{type: 'tool-call', id: 'c', name: 'bash', arguments: '{}'}]);
    const snapshot = structuredClone(before);
    fold(
      [
        {type: 'tool-start', id: 'c', name: 'bash', at: 1},
        {type: 'tool-output', id: 'c', chunk: 'x'},
        {type: 'text-delta', text: 'y\n\nz'},
        {type: 'turn-end', reason: 'aborted', at: 2},
      ],
      before,
    );
    expect(before).toEqual(snapshot);
  });
});

test('a badge shows the first line of the key argument the loop named, and nothing when there is none', () => {
  const start = initialState({model: 'm', mode: 'ask'});
  const withCall = reduce(start, {type: 'tool-call', id: 'c1', name: 'bash', arguments: '{}', keyArg: 'ls\nrm x'});
  expect(withCall.live.tools[0]!.keyArg).toBe('ls');
  const old = reduce(start, {type: 'tool-call', id: 'c2', name: 'bash', arguments: '{"command": '});
  expect(old.live.tools[0]!.keyArg).toBe('');
});

describe('coalesceDeltas', () => {
  test('joins runs of the same delta kind and keeps everything else in order', () => {
    expect(
      coalesceDeltas([
        {type: 'reasoning-delta', text: 'a', at: 1},
        {type: 'reasoning-delta', text: 'b', at: 2},
        {type: 'text-delta', text: 'c', at: 3},
        {type: 'text-delta', text: 'd', at: 4},
        {type: 'tool-call', id: 'x', name: 'bash', arguments: '{}'},
        {type: 'tool-output', id: 'x', chunk: '1'},
        {type: 'tool-output', id: 'x', chunk: '2'},
        {type: 'tool-output', id: 'y', chunk: '3'},
      ]),
    ).toEqual([
      {type: 'reasoning-delta', text: 'ab', at: 1},
      {type: 'text-delta', text: 'cd', at: 4},
      {type: 'tool-call', id: 'x', name: 'bash', arguments: '{}'},
      {type: 'tool-output', id: 'x', chunk: '12'},
      {type: 'tool-output', id: 'y', chunk: '3'},
    ]);
  });

  test('a command\'s output folds to the same tail coalesced or one chunk at a time, CRs and all', () => {
    const bar = (percent: number) => `\rDownloading foo ${'#'.repeat(40)} ${percent}%${' '.repeat(33)}`;
    const cases = [
      ['Collecting foo\n', ...Array.from({length: 60}, (_, index) => bar(index))],
      ['step 1', '\rstep 2', '\r', '\nnext\r', 'over', 'written\n'],
      ['abc\r', '\r\n', '50%\r\r'],
    ];
    for (const chunks of cases) {
      const events: UiInput[] = [
        {type: 'tool-call', id: 'c1', name: 'bash', arguments: '{}', keyArg: 'x'},
        {type: 'tool-start', id: 'c1', name: 'bash', at: 1},
        ...chunks.map(chunk => ({type: 'tool-output', id: 'c1', chunk}) as const),
      ];
      const output = (state: UiState) => state.live.tools[0]!.output;
      expect(output(fold(coalesceDeltas(events)))).toBe(output(fold(events)));
    }
    expect(fold(coalesceDeltas([{type: 'tool-call', id: 'c1', name: 'bash', arguments: '{}', keyArg: 'x'}, ...cases[0]!.map(chunk => ({type: 'tool-output', id: 'c1', chunk}) as const)])).live.tools[0]!.output).toMatch(/^Collecting foo\nDownloading foo #+ 59%/);
    // A pty's CR CR LF ends a line; it does not erase it.
    expect(fold([{type: 'tool-call', id: 'c1', name: 'bash', arguments: '{}', keyArg: 'x'}, {type: 'tool-output', id: 'c1', chunk: 'abc\r'}, {type: 'tool-output', id: 'c1', chunk: '\r\n'}]).live.tools[0]!.output).toBe('abc\n');
  });

  test('folding the coalesced events gives the same text as folding them one by one', () => {
    const answer = 'One.\n\nTwo\n\n```js\na\n\nb\n```\n\nThree';
    const events: AgentEvent[] = [
      {type: 'turn-start', prompt: 'p', at: 1},
      ...[...answer].map(text => ({type: 'text-delta' as const, text})),
      {type: 'turn-end', reason: 'completed', at: 2},
    ];
    const text = (state: UiState) => state.transcript.flatMap(item => (item.kind === 'assistant' ? [item.text] : [])).join('\n\n');
    expect(text(fold(coalesceDeltas(events)))).toBe(text(fold(events)));
    expect(text(fold(events))).toBe(answer);
  });
});

test('no terminal control sequence from the model, a tool or a file reaches the screen state', () => {
  const hostile = 'a\u001B]0;pwned\u0007b\u001B[2Jc';
  const approval: ApprovalRequest = {
    id: 'c1',
    name: 'write',
    args: {path: 'x'},
    preview: {title: `write ${hostile}`, outside: false, file: {path: 'x', oldText: '', newText: hostile}, editable: hostile},
  };
  const events: AgentEvent[] = [
    {type: 'turn-start', prompt: 'go', at: 1},
    {type: 'text-delta', text: hostile},
    {type: 'tool-call', id: 'c1', name: 'write', arguments: JSON.stringify({path: hostile})},
    {type: 'approval-request', request: approval},
    {type: 'tool-output', id: 'c1', chunk: hostile},
    {type: 'error', message: hostile},
  ];
  const state = events.reduce(reduce, initialState({model: 'm', mode: 'ask'}));
  const text = JSON.stringify({transcript: state.transcript, live: state.live, title: state.approvals[0]!.preview.title});
  expect(text).not.toMatch(/\\u001b|\\u0007/i);
  expect(text).toContain(']0;pwnedb[2Jc');
  // The proposal itself stays exact: an edit or a hunk choice is built from it and written.
  expect(state.approvals[0]!.preview.file!.newText).toBe(hostile);
});
