/**
 * The one shape for an expected failure: a value, or an error the caller can act on. `E` is a
 * sentence by default; rooms that need a machine-readable code use `{code, message}`.
 */
export type Result<T, E = string> = {ok: true; value: T} | {ok: false; error: E};

/** A failure with a code for tests and the UI and a sentence for the person or the model. */
export type Failure<C extends string = string> = {code: C; message: string};

/** The message of anything thrown, without a stack. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
