import {readFile} from 'node:fs/promises';
import type {z} from 'zod';
import type {Result} from '../../core/result.js';

/**
 * A JSON file a person writes (the config file, a project's .nib/settings.json): its parsed
 * content, undefined when the file does not exist, or a sentence naming the file and the problem.
 */
export async function readJsonFile(path: string): Promise<Result<unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {ok: true, value: undefined};
    return {ok: false, error: `${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})`};
  }
  try {
    return {ok: true, value: JSON.parse(text)};
  } catch (error) {
    // V8 quotes the text around some errors ('Unexpected token 's', ..."apiKey": sk-12345"...'):
    // with an unquoted key that is the key itself, so the quote is dropped.
    const reason = (error instanceof Error ? error.message : String(error)).replace(/,\s*(?:\.\.\.)?"[\s\S]*"(?:\.\.\.)? is not valid JSON$/, '');
    return {ok: false, error: `${path}: not valid JSON (${reason})`};
  }
}

/** The first thing wrong with a file's content, as `path: field "a.b": message`. */
export function schemaProblem(path: string, error: z.ZodError): string {
  const issue = error.issues[0]!;
  const field = issue.path.length > 0 ? `field "${issue.path.join('.')}"` : 'the file';
  return `${path}: ${field}: ${issue.message}`;
}
