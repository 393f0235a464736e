/** Every bound nib enforces, in one place, so a reviewer can see them all at once. */
export const LIMITS = {
  /** Model round trips in one user turn before nib stops and says so. */
  maxRounds: 50,
  /**
   * Tool arguments: deepest nesting of arrays and objects accepted. No tool needs more than a few
   * levels, and every recursive walk (JSON.stringify, zod, redaction) overflows the stack at a
   * few thousand.
   */
  maxArgumentDepth: 64,
  /** The same tool call (name and identical arguments) this many times in a row is a loop. */
  repeatedCallLimit: 3,
  /** read: lines and bytes returned per call, and the longest line kept. */
  readMaxLines: 2000,
  readMaxBytes: 256 * 1024,
  readMaxLineChars: 2000,
  /** write/edit: largest file content nib will write. */
  writeMaxBytes: 1024 * 1024,
  /** bash: default and largest timeout, and the grace between SIGTERM and SIGKILL. */
  bashDefaultTimeoutMs: 120_000,
  bashMaxTimeoutMs: 600_000,
  bashKillGraceMs: 2_000,
  /** bash: reading on after the shell exits, so a background child holding the pipe cannot hang the call. */
  bashDrainMs: 200,
  /** bash: output kept for the model, head and tail. */
  bashHeadBytes: 8 * 1024,
  bashTailBytes: 24 * 1024,
  /** bash: what the spill file keeps of a long output (the first and last bytes). */
  bashSpillHeadBytes: 16 * 1024 * 1024,
  bashSpillTailBytes: 4 * 1024 * 1024,
  /** grep/list: results returned and longest line. */
  grepMaxResults: 100,
  grepMaxLineChars: 500,
  /** grep: the whole result, whatever max_results and context ask for (1,000 × 41 lines is 20 MB). */
  grepMaxBytes: 256 * 1024,
  listMaxEntries: 500,
  /** list: tree levels shown when the model names no depth. */
  listDefaultDepth: 3,
  /** print mode: the largest prompt read from stdin. */
  stdinMaxBytes: 10 * 1024 * 1024,
  /** provider: silence on an open stream before nib gives up. */
  idleTimeoutMs: 120_000,
  /** MCP: how long print mode waits for servers to start before going on without them. */
  mcpStartupTimeoutMs: 10_000,
  /** MCP: longest wait for a server's initialize and tool list (the TUI keeps trying until then). */
  mcpConnectTimeoutMs: 60_000,
  /** MCP: a tool call silent for longer counts as hung; the server is stopped and marked failed. */
  mcpCallTimeoutMs: 600_000,
  /**
   * provider: the longest line of an event stream, in UTF-16 code units (so at least as many
   * UTF-8 bytes). One event is one line, and a tool call that writes a whole file may come in one
   * chunk: 8 MB of it must pass. A server that never ends a line would otherwise fill memory, and
   * its bytes keep coming, so the idle timeout never ends it.
   */
  sseMaxLineChars: 32 * 1024 * 1024,
  /** provider: attempts before the first token (1 + retries). */
  maxAttempts: 5,
} as const;
