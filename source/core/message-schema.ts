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
export const MessageSchema = z.discriminatedUnion('type', [
  z.object({type: z.literal('system'), content: z.string()}),
  /** `turn`: the session's turn that sent it (absent in older logs, summaries and ! notes). */
  z.object({type: z.literal('user'), content: z.string(), turn: z.number().int().positive().optional()}),
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
