import {parseArgs} from 'node:util';
import {APPROVAL_MODES, isApprovalMode, type ApprovalMode} from '../../core/approval-mode.js';
import {LIMITS} from '../../core/limits.js';
import {isProviderName, PROVIDER_NAMES, type ProviderName} from '../../core/providers.js';
import type {Result} from '../../core/result.js';

// Kept apart from config.ts (which loads zod) so `nib --version` and argument errors load nothing
// else: startup time is a feature.


/** Kept here rather than imported from guard/sandbox.ts, which loads node:child_process. */
export const SANDBOX_SETTINGS = ['auto', 'on', 'off'] as const;
export type SandboxSetting = (typeof SANDBOX_SETTINGS)[number];

export const OUTPUT_FORMATS = ['text', 'json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** Command-line flags as typed; unset ones are undefined so lower layers can fill them in. */
export type Flags = {
  model?: string;
  baseURL?: string;
  /** A preset that sets the base URL and the key's variable (`--base-url` still wins). */
  provider?: ProviderName;
  approvalMode?: ApprovalMode;
  cwd?: string;
  print: boolean;
  outputFormat?: OutputFormat;
  maxRounds?: number;
  /** Tokens the model's server holds; overrides what the server says. */
  contextWindow?: number;
  help: boolean;
  version: boolean;
  /** run against the bundled scripted server. */
  demo: boolean;
  /** resume the latest session of this workspace. */
  continue: boolean;
  /** `true` = show the picker, a string = that session id. */
  resume?: string | true;
  /** auto | on | off: confine commands with bubblewrap. */
  sandbox?: SandboxSetting;
  /** Trust the project's allow rules and hooks for this run. */
  trustProject: boolean;
  /** A file of `{"mcpServers": ...}` added for this run only. */
  mcpConfig?: string;
  /** The positional words joined: the first prompt, if any. */
  prompt?: string;
};

export const FLAG_HELP: ReadonlyArray<readonly [string, string]> = [
  ['-p, --print', 'answer one prompt non-interactively (prompt as argument or on stdin) and exit'],
  ['--model NAME', 'model to use (env NIB_MODEL)'],
  ['--provider NAME', `preset base URL and key variable: ${PROVIDER_NAMES.join(', ')}`],
  ['--base-url URL', `OpenAI-compatible endpoint (env OPENAI_BASE_URL; default ${DEFAULT_BASE_URL})`],
  ['--approval-mode MODE', 'ask | auto-edit | yolo | plan (default ask)'],
  ['--cwd DIR', 'workspace directory (default: the current directory)'],
  ['--output-format FMT', 'print mode output: text | json (one event per line)'],
  ['--max-rounds N', `model round trips per prompt before stopping (default ${LIMITS.maxRounds})`],
  ['--context-window N', "the model's context window in tokens (default: asked from the server)"],
  ['--sandbox MODE', 'auto | on | off: run commands in a bubblewrap sandbox (default auto: when bwrap works)'],
  ['--trust-project', "count this project's allow rules and hooks for this run (.nib/settings.json)"],
  ['--continue', 'resume the latest session in this workspace'],
  ['--resume [ID]', 'resume a session (a picker without ID)'],
  ['--mcp-config FILE', 'add the MCP servers in FILE ({"mcpServers": ...}) for this run'],
  ['--demo', 'try nib against a bundled local model server, no API key needed'],
  ['-h, --help', 'show this help'],
  ['-v, --version', 'print the version'],
];

export function parseFlags(argv: readonly string[]): Result<Flags> {
  let parsed;
  try {
    parsed = parseArgs({
      args: withResumeValue(argv),
      allowPositionals: true,
      strict: true,
      options: {
        model: {type: 'string'},
        'base-url': {type: 'string'},
        provider: {type: 'string'},
        'approval-mode': {type: 'string'},
        cwd: {type: 'string'},
        print: {type: 'boolean', short: 'p'},
        'output-format': {type: 'string'},
        'max-rounds': {type: 'string'},
        'context-window': {type: 'string'},
        help: {type: 'boolean', short: 'h'},
        version: {type: 'boolean', short: 'v'},
        demo: {type: 'boolean'},
        continue: {type: 'boolean', short: 'c'},
        resume: {type: 'string', short: 'r'},
        sandbox: {type: 'string'},
        'trust-project': {type: 'boolean'},
        'mcp-config': {type: 'string'},
      },
    });
  } catch (error) {
    // node:util's messages name the option but then explain `--` at length; keep the first part.
    const message = error instanceof Error ? error.message : String(error);
    const unknown = /^Unknown option '([^']+)'/.exec(message);
    return {ok: false, error: `${unknown ? `unknown option ${unknown[1]}` : message} (see nib --help)`};
  }
  const {values, positionals} = parsed;

  const approvalMode = values['approval-mode'];
  if (approvalMode !== undefined && !isApprovalMode(approvalMode)) {
    return {ok: false, error: `--approval-mode must be one of ${APPROVAL_MODES.join(', ')}, not "${approvalMode}"`};
  }
  const provider = values.provider;
  if (provider !== undefined && !isProviderName(provider)) {
    return {ok: false, error: `--provider must be one of ${PROVIDER_NAMES.join(', ')}, not "${provider}"`};
  }
  const outputFormat = values['output-format'];
  if (outputFormat !== undefined && !(OUTPUT_FORMATS as readonly string[]).includes(outputFormat)) {
    return {ok: false, error: `--output-format must be text or json, not "${outputFormat}"`};
  }
  let maxRounds: number | undefined;
  if (values['max-rounds'] !== undefined) {
    maxRounds = Number(values['max-rounds']);
    if (!Number.isInteger(maxRounds) || maxRounds < 1) {
      return {ok: false, error: `--max-rounds must be a positive whole number, not "${values['max-rounds']}"`};
    }
  }
  let contextWindow: number | undefined;
  if (values['context-window'] !== undefined) {
    contextWindow = Number(values['context-window'].replace(/_/g, ''));
    if (!Number.isInteger(contextWindow) || contextWindow < 256) {
      return {ok: false, error: `--context-window must be a whole number of tokens, at least 256, not "${values['context-window']}"`};
    }
  }
  const sandbox = values.sandbox;
  if (sandbox !== undefined && !(SANDBOX_SETTINGS as readonly string[]).includes(sandbox)) {
    return {ok: false, error: `--sandbox must be one of ${SANDBOX_SETTINGS.join(', ')}, not "${sandbox}"`};
  }
  const prompt = positionals.join(' ').trim();
  return {
    ok: true,
    value: {
      model: values.model,
      baseURL: values['base-url'],
      provider,
      approvalMode,
      cwd: values.cwd,
      print: values.print ?? false,
      outputFormat: outputFormat as OutputFormat | undefined,
      maxRounds,
      contextWindow,
      help: values.help ?? false,
      version: values.version ?? false,
      demo: values.demo ?? false,
      continue: values.continue ?? false,
      resume: values.resume === undefined ? undefined : values.resume === '' ? true : values.resume,
      sandbox: sandbox as SandboxSetting | undefined,
      trustProject: values['trust-project'] ?? false,
      mcpConfig: values['mcp-config'],
      prompt: prompt || undefined,
    },
  };
}

/**
 * `--resume` takes an optional id, which node:util cannot express: a bare `--resume` (last, or
 * followed by another flag) becomes `--resume=` so it parses as "show the picker".
 */
function withResumeValue(argv: readonly string[]): string[] {
  return argv.map((arg, i) => {
    if (arg !== '--resume' && arg !== '-r') return arg;
    const next = argv[i + 1];
    return next === undefined || next.startsWith('-') ? '--resume=' : arg;
  });
}

/**
 * The bundle uses APIs Node 20 lacks (Set.prototype.union in execa, among others); without this
 * check an old `node` on PATH fails later with a cryptic TypeError. Under `npm start` (npm sets
 * npm_lifecycle_event) the old Node means the pinned one in node_modules is missing, and sending
 * the person back to `npm start` would be no help: they are told how to install it.
 */
export function nodeVersionProblem(version: string, env: Readonly<Record<string, string | undefined>> = {}): string | undefined {
  const major = Number(/^v?(\d+)/.exec(version)?.[1] ?? 0);
  if (major >= 22) return undefined;
  if (env['npm_lifecycle_event']) {
    return [
      `nib needs Node.js 22 or newer, and \`npm ${env['npm_lifecycle_event']}\` ran it on this machine's ${version}:`,
      "the Node 24 that nib's `npm install` brings (node_modules/.bin/node) is missing, most likely because",
      "npm skipped its install script (npm 12 runs a dependency's install script only when package.json allows it).",
      "Run `npm rebuild node` in nib's folder to install it (a clone whose package.json has no \"allowScripts\" needs `git pull` first),",
      'or install Node 22 or newer.',
    ].join('\n');
  }
  return `nib needs Node.js 22 or newer, and this is ${version}: install Node 22 or newer (nodejs.org, or \`nvm install 24\`), or run nib from a clone with \`npm start --\`, which brings Node 24`;
}
