import {z} from 'zod';

/**
 * The conversation as nib keeps it. Tool-call `arguments` stay the raw string the model sent:
 * only the tool that runs them parses them, so a malformed call can be answered, not lost.
 */
export const ToolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.string(),
  /** `text`: the model wrote this call as markup in its answer and nib read it from there. */
  source: z.literal('text').optional(),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

export const MessageSchema = z.discriminatedUnion('type', [
  z.object({type: z.literal('system'), content: z.string()}),
  z.object({type: z.literal('user'), content: z.string()}),
  z.object({
    type: z.literal('assistant-text'),
    content: z.string(),
    reasoning: z.string().optional(),
  }),
  z.object({
    type: z.literal('assistant-tool-calls'),
    /** Text the model said before calling tools (the wire allows both in one message). */
    content: z.string().optional(),
    reasoning: z.string().optional(),
    toolCalls: z.array(ToolCallSchema).min(1),
  }),
  z.object({
    type: z.literal('tool-result'),
    toolCallId: z.string(),
    content: z.string(),
    isError: z.boolean().optional(),
  }),
]);
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
