import {z} from 'zod';
import type {ApprovalMode} from '../core/approval-mode.js';
import type {ToolDefinition} from '../core/chat.js';
import {bashTool} from './bash.js';
import {editTool} from './edit.js';
import {grepTool} from './grep.js';
import {listTool} from './list.js';
import {readTool} from './read.js';
import {writeTool} from './write.js';
import type {Tool, ToolKind} from '../core/tool.js';
import {LIMITS} from '../core/limits.js';
import {errorMessage} from '../core/result.js';

// Tools differ in their schema type; the registry only needs what every tool has.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any>;

export type ParsedArgs = {ok: true; value: unknown} | {ok: false; error: string};

export type ToolRegistry = {
  readonly tools: readonly AnyTool[];
  get: (name: string) => AnyTool | undefined;
  /** What the model is offered: plan mode offers the read tools only. */
  definitions: (options: {mode: ApprovalMode}) => ToolDefinition[];
  /** Raw JSON arguments -> validated arguments, or a sentence the model can fix its call from. */
  parseArgs: (tool: AnyTool, raw: string) => ParsedArgs;
  describe: () => Array<{name: string; kind: ToolKind; description: string}>;
};

export const defaultTools: readonly AnyTool[] = [readTool, grepTool, listTool, writeTool, editTool, bashTool];

export function createToolRegistry(tools: readonly AnyTool[] = defaultTools): ToolRegistry {
  const byName = new Map(tools.map(tool => [tool.name, tool]));
  // JSON Schema generation walks the zod tree; do it once per registry, not once per request,
  // and not before the first request: the default registry is built while nib starts.
  let definitionOf: Map<string, ToolDefinition> | undefined;
  return {
    tools,
    get: name => byName.get(name),
    definitions: ({mode}) => {
      definitionOf ??= new Map(tools.map(tool => [tool.name, toDefinition(tool)]));
      return tools.filter(tool => mode !== 'plan' || tool.kind === 'read').map(tool => definitionOf!.get(tool.name)!);
    },
    parseArgs,
    describe: () => tools.map(({name, kind, description}) => ({name, kind, description})),
  };
}

/**
 * The registry of the default tools, for callers that do not need their own set. The registry
 * holds no mutable state, so sharing it is safe.
 */
export const defaultRegistry: ToolRegistry = createToolRegistry();

function toDefinition(tool: AnyTool): ToolDefinition {
  if (tool.parameters) return {type: 'function', function: {name: tool.name, description: tool.description, parameters: tool.parameters}};
  // `io: 'input'` describes what the model may send (defaults make fields optional), and the
  // `$schema` key is dropped because some OpenAI-compatible servers reject unknown keywords.
  const {$schema: _unused, ...parameters} = z.toJSONSchema(tool.schema, {io: 'input'}) as Record<string, unknown>;
  return {type: 'function', function: {name: tool.name, description: tool.description, parameters}};
}

export function parseArgs(tool: AnyTool, raw: string): ParsedArgs {
  // Some providers send "" for a call without arguments; that means {}.
  const text = raw.trim() === '' ? '{}' : raw;
  // Checked on the text, before anything recursive touches it: JSON.parse copes with any depth,
  // but the first recursive walk of the result (zod, JSON.stringify) would overflow the stack.
  if (nestingDepth(text, LIMITS.maxArgumentDepth) > LIMITS.maxArgumentDepth) {
    return {
      ok: false,
      error: `The arguments for ${tool.name} are nested more than ${LIMITS.maxArgumentDepth} levels deep; no tool takes that. Send one flat JSON object, for example ${exampleOf(tool)}.`,
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      error: `The arguments for ${tool.name} are not valid JSON (${errorMessage(error)}). Send one JSON object, for example ${exampleOf(tool)}.`,
    };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return {ok: false, error: `The arguments for ${tool.name} must be a JSON object, for example ${exampleOf(tool)}; got ${describe(json)}.`};
  }
  const parsed = (tool.schema as z.ZodType).safeParse(json);
  if (parsed.success) return {ok: true, value: parsed.data};
  const problems = parsed.error.issues.map(issue => `- ${explainIssue(issue, json as Record<string, unknown>)}`);
  return {
    ok: false,
    error: [`Invalid arguments for ${tool.name}:`, ...problems, `Fix these and call ${tool.name} again.`].join('\n'),
  };
}

/**
 * How deep arrays and objects nest in JSON text, counted up to just past `limit`; brackets inside
 * strings do not count. Linear and without recursion, so any input is safe to measure.
 */
export function nestingDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 92 /* \\ */) index++;
      else if (code === 34 /* " */) inString = false;
    } else if (code === 34) inString = true;
    else if (code === 91 /* [ */ || code === 123 /* { */) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (code === 93 /* ] */ || code === 125 /* } */) depth--;
  }
  return deepest;
}

function explainIssue(issue: z.core.$ZodIssue, input: Record<string, unknown>): string {
  const field = issue.path.length > 0 ? issue.path.join('.') : '(arguments)';
  if (issue.code === 'invalid_type') {
    const given = issue.path.length === 1 ? input[String(issue.path[0])] : undefined;
    if (given === undefined) return `${field}: required, expected ${issue.expected}, but it is missing.`;
    return `${field}: expected ${issue.expected}, got ${describe(given)}.`;
  }
  if (issue.code === 'unrecognized_keys') return `unknown field(s) ${issue.keys.join(', ')}; remove them.`;
  return `${field}: ${issue.message}.`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value} ${JSON.stringify(value)}`;
}

/** A minimal valid-looking call built from the schema's required fields, to show the shape. */
function exampleOf(tool: AnyTool): string {
  const schema = (tool.parameters ?? z.toJSONSchema(tool.schema, {io: 'input'})) as {required?: string[]; properties?: Record<string, {type?: string}>};
  const example: Record<string, unknown> = {};
  for (const key of schema.required ?? []) {
    const type = schema.properties?.[key]?.type;
    example[key] = type === 'number' || type === 'integer' ? 1 : type === 'boolean' ? false : '...';
  }
  return JSON.stringify(example);
}

export {createBuiltinRegistry, createReadLedger, withExtraTools} from './builtin.js';
export type {BuiltinRegistry} from './builtin.js';
export {createReadTool, readTool} from './read.js';
export type {ReadArgs, ReadToolOptions} from './read.js';
export {createWriteTool, writeTool} from './write.js';
export type {FileToolOptions, WriteArgs} from './write.js';
export {applyEdit, createEditTool, editTool} from './edit.js';
export type {EditArgs} from './edit.js';
export {bashTool, createBashTool} from './bash.js';
export type {BashArgs, BashToolOptions} from './bash.js';
export {createGrepTool, grepTool} from './grep.js';
export type {GrepArgs, GrepToolOptions} from './grep.js';
export {createListTool, listTool} from './list.js';
export type {ListArgs, ListToolOptions} from './list.js';
export {countLineChanges, formatChanges} from './diff.js';
export type {LineChanges} from './diff.js';
export {displayPath, isInside, resolvePath, writeAtomic} from './fs/workspace.js';
export type {AtomicWriteOptions, ResolvedPath, ToolError} from './fs/workspace.js';
export {defineTool, isPreview} from '../core/tool.js';
export type {ReadRecord, Tool, ToolContext, ToolDetail, ToolKind, ToolPreview, ToolResult, ReadLedger} from '../core/tool.js';
