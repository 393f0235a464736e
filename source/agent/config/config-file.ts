import {z} from 'zod';
import {APPROVAL_MODES} from '../../core/approval-mode.js';
import {PROVIDER_NAMES} from '../../core/providers.js';
import {HooksSchema, PermissionsSchema, SandboxSchema} from '../guard/schema.js';
import {McpServersSchema} from '../mcp/config.js';
import {schemaProblem} from './json-file.js';
import type {Result} from '../../core/result.js';

/** The user config file, `$XDG_CONFIG_HOME/nib/config.json`. Unknown fields are errors: a typo should not be ignored. */
export const ConfigFileSchema = z
  .object({
    model: z.string().min(1),
    baseURL: z.url(),
    /** A provider preset: its base URL and the variable its key is read from. */
    provider: z.enum(PROVIDER_NAMES),
    apiKey: z.string().min(1),
    approvalMode: z.enum(APPROVAL_MODES),
    maxRounds: z.int().positive(),
    idleTimeoutMs: z.int().positive(),
    sessionRetentionDays: z.int().min(0),
    /** Default context window, and per-model ones: {"contextWindows": {"llama3.1:8b": 8192}}. */
    contextWindow: z.int().positive(),
    contextWindows: z.record(z.string(), z.int().positive()),
    /** Fill fraction that triggers compaction, or false to turn it off. */
    autoCompact: z.union([z.number().gt(0).lte(1), z.literal(false)]),
    /** "auto" | "on" | "off", or {"mode", "network", "hide"}. */
    sandbox: SandboxSchema,
    permissions: PermissionsSchema,
    hooks: HooksSchema,
    /** MCP servers, in the shape of Claude Code's `.mcp.json`. */
    mcpServers: McpServersSchema,
    mcpStartupTimeoutMs: z.int().positive(),
  })
  .partial()
  .strict();
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

/** The parsed config file's JSON -> its fields, or one sentence naming the file and the field. */
export function validateConfigFile(path: string, json: unknown): Result<ConfigFile> {
  const parsed = ConfigFileSchema.safeParse(json);
  if (parsed.success) return {ok: true, value: parsed.data};
  const issue = parsed.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const known = Object.keys(ConfigFileSchema.shape).join(', ');
    return {ok: false, error: `${path}: unknown field "${issue.keys.join('", "')}" (known fields: ${known})`};
  }
  return {ok: false, error: schemaProblem(path, parsed.error)};
}
