import type OpenAI from 'openai';
import type {SdkErrors} from './errors.js';

export type Sdk = {client: OpenAI; errors: SdkErrors};

/**
 * The openai SDK, imported on the first call, not with the provider: with Node's undici under it,
 * it was most of what the interactive session loaded before its first frame.
 */
export function lazySdk(options: {baseURL: string; apiKey: string | undefined; timeoutMs: number; fetch: typeof fetch}): () => Promise<Sdk> {
  let loading: Promise<Sdk> | undefined;
  return () =>
    (loading ??= import('openai').then(module => ({
      errors: module,
      client: new module.default({
        baseURL: options.baseURL,
        apiKey: options.apiKey,
        // Ours are the only retries: the SDK's would double them and hide them from the person.
        maxRetries: 0,
        // The provider's idle timer covers the wait for headers too; this is only a backstop.
        timeout: options.timeoutMs,
        // Looked up per call by the provider's wrapper: reading globalThis.fetch loads undici.
        fetch: options.fetch,
        // stdout belongs to the answer in print mode; the SDK must never write to the console.
        logLevel: 'off',
      }),
    })));
}
