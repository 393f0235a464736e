import {join, resolve} from 'node:path';
import type {ApprovalMode} from '../../core/approval-mode.js';
import {isLoopback} from '../../core/hosts.js';
import {LIMITS} from '../../core/limits.js';
import type {McpServerEntry} from '../mcp/config.js';
import {providerPreset, type ProviderName} from '../../core/providers.js';
import {nibDir} from './xdg.js';
import {redactUrlCredentials} from './redact.js';
import {readJsonFile} from './json-file.js';
import {DEFAULT_BASE_URL, type Flags, type OutputFormat} from './flags.js';
import type {Result} from '../../core/result.js';
import type {Hooks, Permissions} from '../guard/schema.js';
import type {SandboxOptions} from '../guard/sandbox.js';
import type {ConfigFile} from './config-file.js';
import {CONFIG_FIELDS} from './config-fields.js';
import {plainlyValid} from './plain-check.js';

export {DEFAULT_BASE_URL, parseFlags, type Flags, type OutputFormat} from './flags.js';
export type {ConfigFile} from './config-file.js';

/** Everything nib runs with, resolved from flags > env > the user config file > defaults. */
export type Config = {
  model: string | undefined;
  baseURL: string;
  /** Never printed, logged or written anywhere. */
  apiKey: string | undefined;
  /** The preset chosen (flag or config file), if any. */
  provider: ProviderName | undefined;
  /** The variable the key comes from, named in messages about a missing or refused key. */
  keyEnv: string;
  approvalMode: ApprovalMode;
  /** Absolute path of the workspace. */
  cwd: string;
  print: boolean;
  outputFormat: OutputFormat;
  maxRounds: number;
  idleTimeoutMs: number;
  demo: boolean;
  continue: boolean;
  resume: string | true | undefined;
  prompt: string | undefined;
  /** Where the user config file is (or would be), for messages and the first-run screen. */
  configPath: string;
  /** session logs not written for this many days are deleted at start (0 keeps all). */
  sessionRetentionDays: number;
  /** MCP servers from the user config file (the workspace's .mcp.json is read by the session). */
  mcpServers: Record<string, McpServerEntry>;
  /** `--mcp-config FILE`: more servers for this run. */
  mcpConfig: string | undefined;
  /** How long print mode waits for MCP servers before going on without the missing ones. */
  mcpStartupTimeoutMs: number;
  /**
   * The context windows the person set, read for a model with windowFor(): --context-window for
   * any model, else the file's entry for it, else the file's contextWindow; null asks the server.
   */
  contextWindows: {readonly byModel: Readonly<Record<string, number>>; readonly other: number | null};
  /** context fill (0..1) past which nib compacts; null = never automatically. */
  autoCompact: number | null;
  /** The command sandbox: --sandbox > the config file > auto, with its network switch and extra hidden paths. */
  sandbox: SandboxOptions;
  /** The person's own permission rules and hooks (the project's are read with the workspace). */
  permissions: Permissions;
  hooks: Hooks;
  /** --trust-project: the project's allow rules and hooks count for this run. */
  trustProject: boolean;
};

/** Reads and validates the user config file; a missing file is an empty config. */
export async function readConfigFile(path: string): Promise<Result<ConfigFile>> {
  const json = await readJsonFile(path);
  if (!json.ok) return json;
  if (json.value === undefined) return {ok: true, value: {}};
  // A file of plain fields (a model, a URL, a mode, numbers) is checked without zod; anything
  // else, and every problem, is zod's to judge and word.
  if (plainConfig(json.value)) return {ok: true, value: json.value};
  const {validateConfigFile} = await import('./config-file.js');
  return validateConfigFile(path, json.value);
}

function plainConfig(json: unknown): json is ConfigFile {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return false;
  return Object.entries(json).every(([key, value]) => {
    const schema = Object.hasOwn(CONFIG_FIELDS, key) ? CONFIG_FIELDS[key] : null;
    return schema ? plainlyValid(schema, value) : false;
  });
}

/** flags > env > config file > defaults. Pure apart from reading the config file. */
export async function resolveConfig(input: {
  flags: Flags;
  env: NodeJS.ProcessEnv;
  /** The process's working directory, for resolving --cwd. */
  cwd: string;
}): Promise<Result<Config>> {
  const {flags, env} = input;
  const configPath = join(nibDir(env, 'XDG_CONFIG_HOME'), 'config.json');
  const file = await readConfigFile(configPath);
  if (!file.ok) return file;

  let idleTimeoutMs = file.value.idleTimeoutMs ?? LIMITS.idleTimeoutMs;
  if (env.NIB_IDLE_TIMEOUT_MS) {
    idleTimeoutMs = Number(env.NIB_IDLE_TIMEOUT_MS);
    if (!Number.isInteger(idleTimeoutMs) || idleTimeoutMs < 1) {
      return {ok: false, error: `NIB_IDLE_TIMEOUT_MS must be a positive number of milliseconds, not "${env.NIB_IDLE_TIMEOUT_MS}"`};
    }
  }
  const provider = flags.provider ?? file.value.provider;
  const preset = provider ? providerPreset(provider) : undefined;
  // A flag beats the environment, which beats the file; within one layer an explicit URL beats a preset.
  const baseURL = (
    flags.baseURL ??
    (flags.provider ? preset!.baseURL : undefined) ??
    nonEmpty(env.OPENAI_BASE_URL) ??
    file.value.baseURL ??
    preset?.baseURL ??
    DEFAULT_BASE_URL
  ).replace(/\/+$/, '');
  if (!URL.canParse(baseURL)) return {ok: false, error: `the base URL "${redactUrlCredentials(baseURL)}" is not a URL`};
  // `localhost:8080/v1` parses, as a URL of the scheme "localhost:": it would be retried, and
  // taken for a remote server, instead of said.
  const scheme = new URL(baseURL).protocol;
  if (scheme !== 'http:' && scheme !== 'https:') {
    return {ok: false, error: `the base URL "${redactUrlCredentials(baseURL)}" must start with http:// or https://${/^[\w.-]+:\d/.test(baseURL) ? ` (e.g. http://${redactUrlCredentials(baseURL)})` : ''}`};
  }
  // nib appends its routes (/chat/completions, /models) to the URL: after a query they would land in it.
  if (/[?#]/.test(baseURL)) {
    return {ok: false, error: `the base URL "${redactUrlCredentials(baseURL.replace(/[?#].*$/, ''))}…" has a query or fragment; give it without (nib adds /chat/completions to its path; a key goes in ${preset?.keyEnv ?? 'OPENAI_API_KEY'})`};
  }
  // Only the preset's own variable: OPENAI_API_KEY must not be sent to another company's server.
  const keyEnv = preset ? (preset.keyEnv ?? 'NIB_API_KEY') : 'OPENAI_API_KEY';
  const model = flags.model ?? nonEmpty(env.NIB_MODEL) ?? file.value.model;
  // --context-window is for whatever model runs; the file's entries are per model.
  const windows = flags.contextWindow !== undefined ? {byModel: {}, other: flags.contextWindow} : {byModel: file.value.contextWindows ?? {}, other: file.value.contextWindow ?? null};

  return {
    ok: true,
    value: {
      model,
      baseURL,
      apiKey: nonEmpty(env[keyEnv]) ?? file.value.apiKey,
      provider,
      keyEnv,
      approvalMode: flags.approvalMode ?? file.value.approvalMode ?? 'ask',
      cwd: resolve(input.cwd, flags.cwd ?? '.'),
      print: flags.print,
      outputFormat: flags.outputFormat ?? 'text',
      maxRounds: flags.maxRounds ?? file.value.maxRounds ?? LIMITS.maxRounds,
      idleTimeoutMs,
      demo: flags.demo,
      continue: flags.continue,
      resume: flags.resume,
      prompt: flags.prompt,
      configPath,
      sessionRetentionDays: file.value.sessionRetentionDays ?? 30,
      mcpServers: file.value.mcpServers ?? {},
      mcpConfig: flags.mcpConfig,
      mcpStartupTimeoutMs: file.value.mcpStartupTimeoutMs ?? LIMITS.mcpStartupTimeoutMs,
      contextWindows: windows,
      autoCompact: file.value.autoCompact === false ? null : (file.value.autoCompact ?? 0.8),
      sandbox: sandboxOf(flags, file.value),
      permissions: file.value.permissions ?? {},
      hooks: file.value.hooks ?? {},
      trustProject: flags.trustProject,
    },
  };
}

/**
 * What stops a request from being sent: no model, or no key for a remote server. Loopback
 * servers (Ollama, LM Studio, llama.cpp) need no key. `undefined` when ready.
 */
export function readinessProblem(config: Config): string | undefined {
  if (!config.model) {
    return `no model configured: pass --model NAME, set NIB_MODEL, or add "model" to ${config.configPath}`;
  }
  if (!config.apiKey && !isLoopback(config.baseURL)) {
    return `no API key for ${config.baseURL}: set ${config.keyEnv} (e.g. export ${config.keyEnv}=sk-...) or add "apiKey" to ${config.configPath}`;
  }
  return undefined;
}

/** The window the person set for `model`, or null to ask the server. */
export function windowFor(windows: Config['contextWindows'], model: string | undefined): number | null {
  return (model !== undefined && Object.hasOwn(windows.byModel, model) ? windows.byModel[model] : undefined) ?? windows.other;
}

function sandboxOf(flags: Flags, file: ConfigFile): SandboxOptions {
  const written = typeof file.sandbox === 'string' ? {mode: file.sandbox} : (file.sandbox ?? {});
  return {setting: flags.sandbox ?? written.mode ?? 'auto', network: written.network ?? false, hide: written.hide ?? []};
}

function nonEmpty(value: string | undefined): string | undefined {
  return value ? value : undefined;
}
