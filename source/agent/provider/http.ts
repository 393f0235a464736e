/**
 * Requests through `node:http` / `node:https`, not `fetch`. Node loads undici (its fetch) on first
 * use, and with it most of what `nib -p` did before its first request: through node:http that
 * path is ~23 ms and ~30 ms of CPU shorter (bench/startup.mjs), and a streamed answer is read as
 * Node chunks rather than through web streams.
 */
import type {IncomingMessage} from 'node:http';

/** Header lookup, as `Headers#get` (names in any case). */
export type HeaderGet = {get(name: string): string | null};

export type Answer = {
  status: number;
  ok: boolean;
  headers: HeaderGet;
  /** The next piece of the body, decoded (a character cut between reads is kept whole), or null at its end. */
  read(): Promise<string | null>;
  /** The rest of the body, up to `maxChars`. */
  text(maxChars: number): Promise<string>;
  /** Stops reading and releases the connection. */
  close(): void;
};

/** The module for a URL's protocol. Not `import('node:http')`: its ESM facade reads every export, and one of them loads undici. */
export function httpModule(url: string): typeof import('node:http') {
  return process.getBuiltinModule(url.startsWith('https:') ? 'node:https' : 'node:http') as typeof import('node:http');
}

/**
 * Sends one request; resolves once the status and headers are in, rejects when the connection
 * fails or `signal` aborts (the body's reads reject then too).
 */
export function send(
  url: string,
  init: {method: 'GET' | 'POST'; headers: Record<string, string>; body?: string; signal: AbortSignal},
): Promise<Answer> {
  const {method, body, signal} = init;
  const headers = body === undefined ? init.headers : {...init.headers, 'content-length': String(Buffer.byteLength(body))};
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const request = httpModule(url).request(url, {method, headers});
    // Not the request's own `signal` option: that stays armed after the body is read, and an abort
    // then raised an error nobody listened for. This one is removed when the answer closes.
    const abort = () => request.destroy(signal.reason);
    const release = () => signal.removeEventListener('abort', abort);
    signal.addEventListener('abort', abort, {once: true});
    request.on('response', response => {
      // A cut body rejects the read that meets it; once nobody reads, an error has no one to tell.
      response.on('error', () => {});
      resolve(answerOf(response, release));
    });
    request.on('error', error => {
      release();
      reject(error);
    });
    request.end(body);
  });
}

function answerOf(response: IncomingMessage, release: () => void): Answer {
  const status = response.statusCode ?? 0;
  response.setEncoding('utf8');
  const pieces = response[Symbol.asyncIterator]() as AsyncIterator<string>;
  let first = true;
  // A body that has all arrived is drained, which leaves the connection to the agent for the
  // next request; one still arriving is cut.
  const close = () => {
    release();
    if (response.complete) response.resume();
    else response.destroy();
  };
  const read = async (): Promise<string | null> => {
    const next = await pieces.next();
    if (next.done) return null;
    // A leading byte order mark is not part of the text (fetch's decoder drops it too).
    if (first && next.value !== '') {
      first = false;
      return next.value.replace(/^\uFEFF/, '');
    }
    return next.value;
  };
  return {
    status,
    ok: status >= 200 && status <= 299,
    headers: {
      get: name => {
        const value = response.headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
    },
    read,
    text: async maxChars => {
      let text = '';
      try {
        for (let piece = await read(); piece !== null && text.length < maxChars; piece = await read()) text += piece;
      } finally {
        close();
      }
      return text.slice(0, maxChars);
    },
    close,
  };
}
