import {z} from 'zod';
import {HOOK_EVENTS, type HookEvent} from './hook-events.js';
import {ruleProblem} from './rules.js';
import {SANDBOX_SETTINGS} from './sandbox.js';

// The settings' shapes, apart from the code that reads them, so the config file's schema
// (config.ts) can include them without loading anything else.

const RuleList = z.array(z.string().superRefine((text, ctx) => {
  const problem = ruleProblem(text);
  if (problem) ctx.addIssue({code: 'custom', message: problem});
}));

export const PermissionsSchema = z.object({allow: RuleList, ask: RuleList, deny: RuleList}).partial().strict();
export type Permissions = z.infer<typeof PermissionsSchema>;

export {HOOK_EVENTS, type HookEvent};

const HookCommand = z.object({
  type: z.literal('command'),
  command: z.string().min(1),
  /** Seconds, as in Claude Code's settings. */
  timeout: z.number().positive().optional(),
}).strict();
const HookEntry = z.object({
  matcher: z.string().optional().refine(text => text === undefined || isRegex(text), 'not a valid regular expression'),
  hooks: z.array(HookCommand),
}).strict();
export const HooksSchema = z.partialRecord(z.enum(HOOK_EVENTS), z.array(HookEntry));
export type Hooks = z.infer<typeof HooksSchema>;
export type HookEntry = z.infer<typeof HookEntry>;

/** `.nib/settings.json` and `.nib/settings.local.json`: the project's part of the settings. */
export const ProjectSettingsSchema = z.object({permissions: PermissionsSchema, hooks: HooksSchema}).partial().strict();
export type ProjectSettings = z.infer<typeof ProjectSettingsSchema>;


/** `"sandbox": "off"`, or the long form with the network switch and more paths to hide. */
export const SandboxSchema = z.union([
  z.enum(SANDBOX_SETTINGS),
  z.object({mode: z.enum(SANDBOX_SETTINGS), network: z.boolean(), hide: z.array(z.string().min(1))}).partial().strict(),
]);
export type SandboxFileSetting = z.infer<typeof SandboxSchema>;

function isRegex(text: string): boolean {
  try {
    new RegExp(text);
    return true;
  } catch {
    return false;
  }
}
