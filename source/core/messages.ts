import type {z} from 'zod';
// Type-only: the schemas (and zod) load only where a session file is read back.
import type {MessageSchema, ToolCallSchema} from './message-schema.js';

/**
 * The conversation as nib keeps it (see message-schema.ts for the shapes).
 */
export type ToolCall = z.infer<typeof ToolCallSchema>;
export type Message = z.infer<typeof MessageSchema>;

/** Chat Completions wire shape of one message (the subset nib sends and reads). */
export type WireMessage =
  | {role: 'system'; content: string}
  | {role: 'user'; content: string}
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: Array<{id: string; type: 'function'; function: {name: string; arguments: string}}>;
    }
  | {role: 'tool'; tool_call_id: string; content: string};

export function toWire(message: Message): WireMessage {
  switch (message.type) {
    case 'system':
      return {role: 'system', content: message.content};
    case 'user':
      return {role: 'user', content: message.content};
    case 'assistant-text':
      return {role: 'assistant', content: message.content};
    case 'assistant-tool-calls':
      return {
        role: 'assistant',
        // Some servers reject an empty string next to tool_calls; null is what OpenAI sends.
        content: message.content ? message.content : null,
        tool_calls: message.toolCalls.map(call => ({
          id: call.id,
          type: 'function',
          function: {name: call.name, arguments: call.arguments},
        })),
      };
    case 'tool-result':
      return {role: 'tool', tool_call_id: message.toolCallId, content: message.content};
  }
}

/**
 * The history as a request carries it. A turn that failed before the model answered (a dropped
 * connection, a 500, an empty stream) leaves its prompt without a reply, and the next prompt
 * would follow it as a second user message in a row, which chat templates that require the roles
 * to alternate (Gemma's, Mistral's, served by vLLM or llama.cpp) refuse: every later prompt
 * failed. Such prompts go as one message, the earlier first; the log keeps them apart.
 */
export function toWireMessages(history: readonly Message[]): WireMessage[] {
  const wire: WireMessage[] = [];
  for (const message of history) {
    const previous = wire.at(-1);
    if (message.type === 'user' && previous?.role === 'user') wire[wire.length - 1] = {role: 'user', content: `${previous.content}\n\n${message.content}`};
    else wire.push(toWire(message));
  }
  return wire;
}

/** Tool calls with no result yet: after an abort each gets one so the next request is valid. */
export function unansweredToolCalls(history: readonly Message[]): ToolCall[] {
  const answered = new Set<string>();
  for (const message of history) if (message.type === 'tool-result') answered.add(message.toolCallId);
  const open: ToolCall[] = [];
  for (const message of history) {
    if (message.type !== 'assistant-tool-calls') continue;
    for (const call of message.toolCalls) if (!answered.has(call.id)) open.push(call);
  }
  return open;
}
