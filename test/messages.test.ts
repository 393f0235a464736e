import {describe, expect, test} from 'vitest';
import {fromWire, MessageSchema, toWire, unansweredToolCalls, type Message} from '../source/agent/messages.js';

const history: Message[] = [
  {type: 'system', content: 'be brief'},
  {type: 'user', content: 'read a.txt'},
  {type: 'assistant-tool-calls', content: 'Looking.', toolCalls: [{id: 'c1', name: 'read', arguments: '{"path": "a.txt"'}]},
  {type: 'tool-result', toolCallId: 'c1', content: 'not valid JSON'},
  {type: 'assistant-tool-calls', toolCalls: [{id: 'c2', name: 'read', arguments: ''}]},
  {type: 'tool-result', toolCallId: 'c2', content: '1\thello'},
  {type: 'assistant-text', content: 'It says hello.'},
];

describe('messages', () => {
  test('every kind goes to the wire and back unchanged; arguments stay the raw string', () => {
    for (const message of history) expect(fromWire(toWire(message))).toEqual(message);
    expect(toWire(history[2]!)).toMatchObject({role: 'assistant', tool_calls: [{function: {arguments: '{"path": "a.txt"'}}]});
  });

  test('tool calls without text go out with content null, as OpenAI sends them', () => {
    expect(toWire(history[4]!)).toMatchObject({role: 'assistant', content: null});
  });

  test('wire content given as text parts is read as text; an unknown role is refused', () => {
    expect(fromWire({role: 'user', content: [{type: 'text', text: 'a'}, {type: 'text', text: 'b'}]})).toEqual({type: 'user', content: 'ab'});
    expect(() => fromWire({role: 'developer', content: 'x'})).toThrow();
  });

  test('the schema refuses a tool-calls message with no calls', () => {
    expect(MessageSchema.safeParse({type: 'assistant-tool-calls', toolCalls: []}).success).toBe(false);
    expect(MessageSchema.safeParse(history[2]).success).toBe(true);
  });

  test('unansweredToolCalls finds exactly the calls with no result', () => {
    expect(unansweredToolCalls(history)).toEqual([]);
    expect(unansweredToolCalls(history.slice(0, 3)).map(call => call.id)).toEqual(['c1']);
  });
});
