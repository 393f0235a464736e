import {z} from 'zod';
import type {Result} from '../../core/result.js';
import type {Tool, ToolContext, ToolResult} from '../../core/tool.js';
import {isObject} from '../provider/wire.js';

/** A tool as a server lists it (`tools/list`). */
export type McpToolInfo = {name: string; description?: string; inputSchema?: Record<string, unknown>};

/** Runs one call on the server; never throws: a failure is a ToolResult with isError. */
export type McpCall = (tool: string, args: Record<string, unknown>, ctx: ToolContext, signal: AbortSignal) => Promise<ToolResult>;

/** The prefix of every MCP tool name, as Claude Code and Codex spell it, so prompts carry over. */
export const MCP_PREFIX = 'mcp__';

/**
 * `mcp__<server>__<tool>`, squeezed into what OpenAI-compatible servers accept for a function name
 * (letters, digits, `_` and `-`, at most 64 characters). Two servers can therefore produce the
 * same name; the hub keeps the first and reports the other.
 */
export function mcpToolName(server: string, tool: string): string {
  return `${MCP_PREFIX}${squeeze(server)}__${squeeze(tool)}`.slice(0, 64);
}

const squeeze = (text: string) => text.replace(/[^A-Za-z0-9_-]/g, '_');

/**
 * Why a server name cannot be used, or null. A tool name, and the permission rules that name
 * it, split at the first `__` after the prefix: with a server `every__thing` (or `every_`) beside
 * `every`, `mcp__every` would also cover the other server's tools and `mcp__every__thing` would
 * read as one tool. Refused where it is configured, so every name splits one way.
 */
export function serverNameProblem(name: string): string | null {
  const squeezed = squeeze(name);
  if (!squeezed.includes('__') && !squeezed.endsWith('_')) return null;
  const fixed = squeezed.replace(/_{2,}/g, '_').replace(/_+$/, '');
  const where = squeezed === name ? '' : ` (read as "${squeezed}")`;
  return `its name${where} ${squeezed.includes('__') ? 'contains "__"' : 'ends in "_"'}, which would make mcp__<server>__<tool> names and permission rules ambiguous; rename it${fixed ? `, e.g. to "${fixed}"` : ''}`;
}

/**
 * One entry of a server's `tools/list`, checked on its own: a tool nib cannot offer (no name, or
 * a schema for something other than an object of arguments) is left out with a line saying why,
 * and the server's other tools stay usable. A schema with no `type` at all is kept: toParameters adds it.
 */
export function checkToolInfo(raw: unknown): Result<McpToolInfo> {
  const tool = isObject(raw) ? raw : {};
  const name = tool['name'];
  if (typeof name !== 'string' || name === '') return {ok: false, error: 'a tool without a name left out'};
  const left = (why: string) => ({ok: false as const, error: `tool "${name}" left out: ${why}`});
  const schema = tool['inputSchema'];
  if (schema !== undefined && !isObject(schema)) return left('its inputSchema is not a JSON object');
  if (schema?.['type'] !== undefined && schema['type'] !== 'object') {
    return left(`its inputSchema has type ${JSON.stringify(schema['type'])}, but a tool's arguments are an object`);
  }
  if (schema?.['properties'] !== undefined && !isObject(schema['properties'])) return left('its inputSchema "properties" is not a JSON object');
  const description = typeof tool['description'] === 'string' ? tool['description'] : undefined;
  return {ok: true, value: {name, ...(description !== undefined ? {description} : {}), ...(schema ? {inputSchema: schema} : {})}};
}

// The server validates its own arguments against its own schema; nib only checks that the model
// sent an object, so a schema zod cannot express ($ref, $defs, oneOf) is never refused here.
const anyObject = z.record(z.string(), z.unknown());

/**
 * The server's input schema, as the model will see it. It is passed through whole, `$defs` and
 * `definitions` included, because `$ref`s point into them from the root. Only `$schema` goes
 * (some OpenAI-compatible servers reject unknown keywords), and a schema without `type: object`
 * or `properties` gets them, which function calling requires.
 */
export function toParameters(inputSchema: Record<string, unknown> | undefined): Record<string, unknown> {
  const {$schema: _dropped, ...rest} = inputSchema ?? {};
  return {...rest, type: 'object', properties: (rest.properties as object | undefined) ?? {}};
}

/**
 * A server tool as a nib tool. Its kind is `exec` whatever its annotations say: `readOnlyHint` is
 * the server's claim, not a fact nib can check, so every call asks in ask and auto-edit and none
 * is offered in plan mode.
 */
export function toNibTool(server: string, info: McpToolInfo, call: McpCall): Tool<typeof anyObject> {
  const name = mcpToolName(server, info.name);
  const description = info.description?.trim() || `The ${info.name} tool of the ${server} MCP server.`;
  return {
    name,
    kind: 'exec',
    description: `${description}\n(MCP server "${server}", tool "${info.name}")`,
    schema: anyObject,
    parameters: toParameters(info.inputSchema),
    keyArg: args => oneLine(args),
    isOutside: async () => false,
    preview: async args => ({
      title: `${server} · ${info.name}`,
      outside: false,
      json: JSON.stringify(args, null, 2),
    }),
    run: (args, ctx, signal) => call(info.name, args, ctx, signal),
  };
}

function oneLine(args: Record<string, unknown>): string {
  const text = JSON.stringify(args);
  if (text === '{}') return '';
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
