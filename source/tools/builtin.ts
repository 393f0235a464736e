import type {ApprovalMode} from '../core/approval-mode.js';
import type {ToolDefinition} from '../core/chat.js';
import type {ReadLedger, ToolKind} from '../core/tool.js';
import {BUILTIN_DEFINITIONS} from './definitions.js';
import type {AnyTool, ParsedArgs, ToolRegistry} from './index.js';

/**
 * The built-in tools as the loop uses them, without loading them up front. The first request
 * needs only the tools' definitions, generated at build time (definitions.ts), so neither zod
 * nor any tool module stands between `nib -p` starting and that request reaching the server.
 * The tools themselves load while the model answers (`load`), before a call needs them.
 */
export type BuiltinRegistry = {
  definitions: (options: {mode: ApprovalMode}) => ToolDefinition[];
  /** Each tool's name, kind and description, for --help and /tools; loads nothing. */
  describe: () => Array<{name: string; kind: ToolKind; description: string}>;
  /** Imports the tools; every later call returns the same promise. */
  load: () => Promise<void>;
  /** Only after `load` resolved: the loop awaits it before it looks up a call's tool. */
  get: (name: string) => AnyTool | undefined;
  parseArgs: (tool: AnyTool, raw: string) => ParsedArgs;
};

export function createBuiltinRegistry(): BuiltinRegistry {
  let loaded: ToolRegistry | undefined;
  let loading: Promise<void> | undefined;
  const registry = (): ToolRegistry => {
    if (!loaded) throw new Error('the built-in tools were used before load() finished');
    return loaded;
  };
  return {
    definitions: ({mode}) => BUILTIN_DEFINITIONS.filter(entry => mode !== 'plan' || entry.kind === 'read').map(entry => entry.definition),
    describe: () => BUILTIN_DEFINITIONS.map(({kind, definition}) => ({name: definition.function.name, kind, description: definition.function.description})),
    load: () =>
      (loading ??= import('./index.js').then(tools => {
        loaded = tools.defaultRegistry;
      })),
    get: name => registry().get(name),
    parseArgs: (tool, raw) => registry().parseArgs(tool, raw),
  };
}

/**
 * `base` plus tools that come and go while the session runs (MCP servers connect, fail, restart):
 * `extra()` is asked on every request and lookup. Plan mode offers none of them unless they are
 * read tools. They bring their JSON Schema (`parameters`), as MCP tools do.
 */
export function withExtraTools(base: BuiltinRegistry, extra: () => readonly AnyTool[]): BuiltinRegistry {
  const offered = (mode: ApprovalMode) => extra().filter(tool => mode !== 'plan' || tool.kind === 'read');
  return {
    definitions: ({mode}) => [
      ...base.definitions({mode}),
      ...offered(mode).map((tool): ToolDefinition => ({type: 'function', function: {name: tool.name, description: tool.description, parameters: tool.parameters ?? {type: 'object'}}})),
    ],
    describe: () => [...base.describe(), ...extra().map(({name, kind, description}) => ({name, kind, description}))],
    load: base.load,
    get: name => base.get(name) ?? extra().find(tool => tool.name === name),
    parseArgs: base.parseArgs,
  };
}

export function createReadLedger(): ReadLedger {
  return new Map();
}
