import {describe, expect, test} from 'vitest';
import {MessageSchema} from '../../source/core/message-schema.js';
import {toWire, unansweredToolCalls, type Message} from '../../source/core/messages.js';

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
  test('every kind goes to the wire; arguments stay the raw string', () => {
    expect(history.map(toWire)).toEqual([
      {role: 'system', content: 'be brief'},
      {role: 'user', content: 'read a.txt'},
      {role: 'assistant', content: 'Looking.', tool_calls: [{id: 'c1', type: 'function', function: {name: 'read', arguments: '{"path": "a.txt"'}}]},
      {role: 'tool', tool_call_id: 'c1', content: 'not valid JSON'},
      {role: 'assistant', content: null, tool_calls: [{id: 'c2', type: 'function', function: {name: 'read', arguments: ''}}]},
      {role: 'tool', tool_call_id: 'c2', content: '1\thello'},
      {role: 'assistant', content: 'It says hello.'},
    ]);
  });

  test('tool calls without text go out with content null, as OpenAI sends them', () => {
    expect(toWire(history[4]!)).toMatchObject({role: 'assistant', content: null});
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
