import type {z} from 'zod';

export type ToolKind = 'read' | 'write' | 'exec';

/** What the person reviews before a call runs. */
export type ToolPreview = {
  /** One line: `edit source/app.ts`, `bash npm test`. */
  title: string;
  /** The call touches a path outside the workspace; the prompt must say so. */
  outside: boolean;
  /** The call writes into a version-control directory (`.git/`…) or nib's `.nib/`/`.mcp.json`; the prompt must say which. */
  protectedDir?: string;
  /**
   * For write/edit: the file as it is and as it would be after the call, exactly (a BOM and CRLF
   * line breaks included; a renderer may hide `\r`). `path` is the display path: relative to the
   * root when inside, absolute when outside. `oldText` is null for a new file.
   */
  file?: {path: string; oldText: string | null; newText: string};
  /** For bash: the command and where it runs. */
  command?: {command: string; cwd: string};
  /** For tools whose arguments are the whole story (MCP): the arguments as formatted JSON. */
  json?: string;
  /** The text `e` opens in $EDITOR (new file content, or the command). */
  editable?: string;
};

/** Structured result detail for the UI; never sent to the model. */
export type ToolDetail = {
  /** One-line summary for the badge: "read 120 lines", "+12 −3", "exit 1 · 3.2 s". */
  summary: string;
  /** write/edit: the file before and after, as written. */
  file?: {path: string; oldText: string | null; newText: string};
  added?: number;
  removed?: number;
  exitCode?: number | null;
  signal?: string | null;
  durationMs?: number;
  lines?: number;
  matches?: number;
};

export type ToolResult = {
  content: string;
  isError: boolean;
  /** Machine-readable failure code for tests and the UI. */
  code?: string;
  detail?: ToolDetail;
};

/** What a tool needs from the session; everything is passed in, nothing is global. */
export type ToolContext = {
  /** Absolute, real path of the workspace root. */
  root: string;
  /** Session state shared by the tools (read tracker for the stale-read guard, etc.). */
  ledger: ReadLedger;
  /** Streams output while the tool runs (bash). */
  onOutput?: (chunk: string) => void;
  /**
   * Masks secrets (the API key) in what a tool returns, before the model, the events and the
   * session log see it: a command can print the key (`cat /proc/$PPID/environ`, a config file).
   */
  redact?: (text: string) => string;
  /**
   * Confines a command: turns its argv into one that runs inside the sandbox. Absent when
   * commands run unconfined (`--sandbox off`, or no working sandbox here).
   */
  wrap?: (argv: readonly string[]) => string[];
  /** Environment variables a command must not see (nib's own secrets), on top of the tool's own list. */
  hiddenEnv?: readonly string[];
  /**
   * The deny rule (its text) that forbids reading `paths` (one file as written and as it really
   * is), or null. Reads the person starts themselves (`@path`) answer to it too.
   */
  readDenied?: (paths: readonly string[]) => string | null;
};

export type ReadRecord = {size: number; mtimeMs: number; hash: string};

/**
 * The files the model has read in this session, by absolute real path, with what they held then:
 * a write or edit of a file that changed since (or was never read) is refused.
 */
export type ReadLedger = Map<string, ReadRecord>;

export type Tool<S extends z.ZodType = z.ZodType> = {
  name: string;
  kind: ToolKind;
  /** Written for the model. */
  description: string;
  schema: S;
  /** Runs its work through `ToolContext.wrap`, so the sandbox covers it. */
  confinable?: boolean;
  /**
   * The JSON Schema the model is offered, when it does not come from `schema`: an MCP server's
   * own schema is passed through as written, and `schema` then only checks for an object.
   */
  parameters?: Record<string, unknown>;
  /** The argument a badge shows (path, command, pattern). */
  keyArg: (args: z.infer<S>) => string;
  /** Whether the call reaches outside the workspace (decides approval even for reads). */
  isOutside: (args: z.infer<S>, ctx: ToolContext) => Promise<boolean>;
  /**
   * For writes: the version-control directory (`.git`, `.hg`…) the call would write into, or null.
   * Such a write always asks, whatever the mode or "always" says.
   */
  protectedDir?: (args: z.infer<S>, ctx: ToolContext) => Promise<string | null>;
  preview: (args: z.infer<S>, ctx: ToolContext) => Promise<ToolPreview | ToolResult>;
  run: (args: z.infer<S>, ctx: ToolContext, signal: AbortSignal) => Promise<ToolResult>;
  /**
   * Runs the person's edited version of the proposal instead (the text from `$EDITOR`):
   * the whole new file for write/edit, the command for bash.
   */
  runEdited?: (args: z.infer<S>, text: string, ctx: ToolContext, signal: AbortSignal) => Promise<ToolResult>;
};

export function defineTool<S extends z.ZodType>(tool: Tool<S>): Tool<S> {
  return tool;
}

export function isPreview(value: ToolPreview | ToolResult): value is ToolPreview {
  return 'title' in value;
}

/** How the approval prompt and a refusal name a protected place (`.git`, `.nib`, `.mcp.json`). */
export function protectedPlace(dir: string): string {
  const lower = dir.toLowerCase();
  if (lower === '.nib') return '.nib/, nib\'s project settings, hooks and commands';
  if (lower === '.mcp.json') return '.mcp.json, the project\'s MCP servers';
  return `${dir}/, a version-control directory`;
}
