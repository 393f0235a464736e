import {z} from 'zod';
import {MessageSchema} from '../../core/message-schema.js';

// The shapes of a session log's lines (log.ts). Apart from the other session code: only reading a
// log back needs them, so a new session never loads zod.
export const HeaderSchema = z.object({
  type: z.literal('header'),
  version: z.number(),
  id: z.string(),
  created: z.string(),
  cwd: z.string(),
  model: z.string(),
});

export const RecordSchema = z.discriminatedUnion('type', [
  z.object({type: z.literal('message'), at: z.number(), message: MessageSchema}),
  // Events are the loop's own output; their shape is checked where they are consumed.
  z.object({type: z.literal('event'), at: z.number(), event: z.looseObject({type: z.string()})}),
  z.object({
    type: z.literal('snapshot'),
    at: z.number(),
    turn: z.number(),
    phase: z.enum(['before', 'after']),
    id: z.string(),
  }),
  z.object({type: z.literal('undo'), at: z.number(), turn: z.number()}),
  z.object({
    type: z.literal('compaction'),
    at: z.number(),
    history: z.array(MessageSchema),
    summary: z.string(),
  }),
  z.object({type: z.literal('rewind'), at: z.number(), turn: z.number(), history: z.array(MessageSchema)}),
]);
