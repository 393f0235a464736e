/**
 * Requests through `node:http` / `node:https`, not `fetch`. Node loads undici (its fetch) on first
 * use, and with it most of what `nib -p` did before its first request: through node:http that
 * path is ~23 ms and ~30 ms of CPU shorter (bench/startup.mjs), and a streamed answer is read as
 * Node chunks rather than through web streams. What fetch did that matters here is done here too:
 * redirects are followed, a compressed body is decoded, and a GET on a kept-alive connection the
 * server closed meanwhile is tried again once.
 */
import type {ClientRequest, IncomingMessage} from 'node:http';
import type {Readable} from 'node:stream';

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

export type SendInit = {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
};

/** How long a body the reader stopped early is given to end before its connection is cut. */
const END_WAIT_MS = 500;

/** As fetch: at most this many redirects in a row. */
const MAX_REDIRECTS = 20;

/** The module for a URL's protocol. Not `import('node:http')`: its ESM facade reads every export, and one of them loads undici. */
export function httpModule(url: string): typeof import('node:http') {
  return process.getBuiltinModule(isHttps(url) ? 'node:https' : 'node:http') as typeof import('node:http');
}

function isHttps(url: string): boolean {
  try {
    return new URL(url).protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * Sends one request; resolves once the status and headers are in, rejects when the connection
 * fails or `signal` aborts (the body's reads reject then too). Redirects are followed as fetch
 * follows them: 307 and 308 keep the method and body, the others turn a POST into a GET; the
 * key is not sent to another origin.
 */
export async function send(url: string, init: SendInit): Promise<Answer> {
  let target = url;
  let {method, body} = init;
  let headers = {...init.headers};
  for (let hop = 0; ; hop++) {
    const answer = await sendOnce(target, {method, headers, signal: init.signal, ...(body === undefined ? {} : {body})});
    const next = answer.status >= 300 && answer.status < 400 ? redirectTarget(answer.headers.get('location'), target) : null;
    // No place to go (or one that is not http): the 3xx itself is the answer, explained as a status.
    if (next === null || hop === MAX_REDIRECTS) return answer;
    answer.close();
    if (next.origin !== new URL(target).origin) {
      const {authorization: _dropped, ...rest} = headers;
      headers = rest;
    }
    if (answer.status !== 307 && answer.status !== 308 && method === 'POST') {
      method = 'GET';
      body = undefined;
      const {'content-type': _type, ...rest} = headers;
      headers = rest;
    }
    target = next.href;
  }
}

function redirectTarget(location: string | null, from: string): URL | null {
  if (location === null) return null;
  try {
    const next = new URL(location, from);
    return next.protocol === 'http:' || next.protocol === 'https:' ? next : null;
  } catch {
    return null;
  }
}

function sendOnce(url: string, init: SendInit, retried = false): Promise<Answer> {
  const {method, body, signal} = init;
  const headers = body === undefined ? init.headers : {...init.headers, 'content-length': String(Buffer.byteLength(body))};
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const request: ClientRequest = httpModule(url).request(url, {method, headers});
    // Not the request's own `signal` option: that stays armed after the body is read, and an abort
    // then raised an error nobody listened for. This one is removed when the answer closes.
    const abort = () => request.destroy(signal.reason);
    const release = () => signal.removeEventListener('abort', abort);
    signal.addEventListener('abort', abort, {once: true});
    let answered = false;
    request.on('response', response => {
      answered = true;
      // A cut body rejects the read that meets it; once nobody reads, an error has no one to tell.
      response.on('error', () => {});
      resolve(answerOf(response, release));
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      release();
      // A kept-alive connection the server closed while it sat idle: a GET goes once more on a new
      // connection (what Node's documentation advises). Not a POST: the server may have received
      // it, and a chat request sent twice is answered (and billed) twice; the provider's own
      // retry, which the person sees, decides about that one.
      if (!retried && !answered && method === 'GET' && request.reusedSocket && error.code === 'ECONNRESET' && !signal.aborted) {
        sendOnce(url, init, true).then(resolve, reject);
        return;
      }
      reject(error);
    });
    request.end(body);
  });
}

function answerOf(response: IncomingMessage, release: () => void): Answer {
  const status = response.statusCode ?? 0;
  const body = decoded(response);
  body.setEncoding('utf8');
  const pieces = body[Symbol.asyncIterator]() as AsyncIterator<string>;
  let first = true;
  // A body that has all arrived is drained, which leaves the connection to the agent for the
  // next request. One still arriving (the reader stopped early, at [DONE] or a size cap, and the
  // body's last bytes are a read behind) is drained for a moment more, then cut: an https
  // connection kept for the next turn saves its TLS handshake. One already cut (an abort, a
  // reset) has nothing left. (The iterator's own listener stops resume() from draining, so the
  // buffer is read out by hand.)
  const close = () => {
    release();
    const drain = () => {
      while (body.read() !== null);
    };
    if (response.destroyed || body.destroyed) return;
    if (response.complete) {
      drain();
      body.resume();
      return;
    }
    const cut = setTimeout(() => {
      response.destroy();
      if (body !== response) body.destroy();
    }, END_WAIT_MS);
    cut.unref();
    // Nor does the connection hold the process open meanwhile (the agent refs it again on reuse).
    response.socket?.unref();
    body.on('readable', drain);
    body.once('close', () => clearTimeout(cut));
    drain();
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

/** The body without its content encoding (gzip, deflate, br), as fetch gives it. */
function decoded(response: IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return response;
  const zlib = process.getBuiltinModule('node:zlib') as typeof import('node:zlib');
  // Flushed as it arrives: a compressed event stream still streams.
  const flush = {flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH};
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip(flush)
      : encoding === 'deflate'
        ? zlib.createInflate(flush)
        : encoding === 'br'
          ? zlib.createBrotliDecompress({flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH})
          : null;
  if (decoder === null) return response;
  // A cut body or bad data rejects the read that meets it.
  response.on('error', error => decoder.destroy(error));
  decoder.on('error', () => {});
  return response.pipe(decoder);
}
