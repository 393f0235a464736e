import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http';
import {gzipSync} from 'node:zlib';
import type {AddressInfo} from 'node:net';
import {afterEach, describe, expect, it} from 'vitest';
import {httpModule, send} from '../../../source/agent/provider/http.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(server => new Promise(resolve => server.close(resolve))));
});

/** A loopback server; `ports` records the client port of every request (one port: one connection). */
async function serve(handle: (request: IncomingMessage, response: ServerResponse) => void): Promise<{url: string; ports: number[]}> {
  const ports: number[] = [];
  const server = createServer((request, response) => {
    ports.push(request.socket.remotePort ?? 0);
    handle(request, response);
  });
  servers.push(server);
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, ports};
}

async function readAll(answer: Awaited<ReturnType<typeof send>>): Promise<string[]> {
  const pieces: string[] = [];
  for (let piece = await answer.read(); piece !== null; piece = await answer.read()) pieces.push(piece);
  return pieces;
}

describe('send', () => {
  it('decodes a character cut between two writes whole, and drops a leading byte order mark', async () => {
    const bytes = Buffer.from('\uFEFFé€😀 done', 'utf8');
    const {url} = await serve((_request, response) => {
      response.writeHead(200);
      // Every byte on its own write, each a separate read for the client.
      let at = 0;
      const next = () => (at < bytes.length ? response.write(bytes.subarray(at, ++at), () => setTimeout(next, 1)) : response.end());
      next();
    });
    const answer = await send(url, {method: 'GET', headers: {}, signal: AbortSignal.timeout(5000)});
    expect((await readAll(answer)).join('')).toBe('é€😀 done');
  });

  it('posts the body with its length, and gives the status and headers of an error', async () => {
    let received = '';
    const {url} = await serve((request, response) => {
      request.on('data', (part: Buffer) => (received += part.toString('utf8')));
      request.on('end', () => response.writeHead(429, {'Retry-After': '2'}).end('{"error":{"message":"slow down"}}'));
    });
    const answer = await send(url, {method: 'POST', headers: {'content-type': 'application/json'}, body: '{"a":"ü"}', signal: AbortSignal.timeout(5000)});
    expect(answer).toMatchObject({status: 429, ok: false});
    expect(answer.headers.get('RETRY-AFTER')).toBe('2');
    expect(await answer.text(1000)).toBe('{"error":{"message":"slow down"}}');
    expect(received).toBe('{"a":"ü"}');
  });

  it('a body read to its end leaves the connection for the next request; an abort after it is no error', async () => {
    const {url, ports} = await serve((_request, response) => response.end('data: [DONE]\n\n'));
    const controller = new AbortController();
    const first = await send(url, {method: 'GET', headers: {}, signal: controller.signal});
    expect(await first.read()).toBe('data: [DONE]\n\n');
    // Stopped at [DONE], as the provider does, without reading the end of the body.
    first.close();
    controller.abort();
    // The drained body ends, and its socket returns to the pool, a few ticks later.
    await new Promise(resolve => setTimeout(resolve, 20));
    const second = await send(url, {method: 'GET', headers: {}, signal: AbortSignal.timeout(5000)});
    await readAll(second);
    second.close();
    expect(ports).toHaveLength(2);
    expect(ports[1]).toBe(ports[0]);
  });

  it('an abort mid-body rejects the read waiting for it; an abort before sending sends nothing', async () => {
    const {url, ports} = await serve((_request, response) => {
      response.writeHead(200);
      response.write('data: partial\n\n');
    });
    const controller = new AbortController();
    const answer = await send(url, {method: 'GET', headers: {}, signal: controller.signal});
    expect(await answer.read()).toBe('data: partial\n\n');
    const waiting = answer.read();
    controller.abort();
    await expect(waiting).rejects.toThrow();
    await expect(send(url, {method: 'GET', headers: {}, signal: controller.signal})).rejects.toThrow(/abort/i);
    expect(ports).toHaveLength(1);
  });

  it('a refused connection rejects with the reason', async () => {
    const {url} = await serve(() => {});
    await new Promise(resolve => servers.pop()!.close(resolve));
    await expect(send(url, {method: 'GET', headers: {}, signal: AbortSignal.timeout(5000)})).rejects.toThrow(/ECONNREFUSED/);
  });

  it('follows redirects as fetch does: 307/308 keep the POST and its body, 303 turns it into a GET; the key stays with its origin', async () => {
    const other = await serve((request, response) => {
      response.end(JSON.stringify({method: request.method, authorization: request.headers.authorization ?? null}));
    });
    const seen: string[] = [];
    const {url} = await serve((request, response) => {
      let body = '';
      request.on('data', (part: Buffer) => (body += part.toString('utf8')));
      request.on('end', () => {
        seen.push(`${request.method} ${request.url} ${body}`);
        if (request.url === '/v1/chat/completions') return void response.writeHead(308, {location: '/api/v1/chat/completions'}).end();
        if (request.url === '/see-other') return void response.writeHead(303, {location: '/landed'}).end();
        if (request.url === '/away') return void response.writeHead(307, {location: `${other.url}/there`}).end();
        response.end(`${request.method} ${body}`);
      });
    });
    const post = (path: string) => send(`${url}${path}`, {method: 'POST', headers: {authorization: 'Bearer k'}, body: '{"a":1}', signal: AbortSignal.timeout(5000)});
    expect(await (await post('/v1/chat/completions')).text(1000)).toBe('POST {"a":1}');
    expect(await (await post('/see-other')).text(1000)).toBe('GET ');
    expect(JSON.parse(await (await post('/away')).text(1000))).toEqual({method: 'POST', authorization: null});
    expect(seen).toEqual(['POST /v1/chat/completions {"a":1}', 'POST /api/v1/chat/completions {"a":1}', 'POST /see-other {"a":1}', 'GET /landed ', 'POST /away {"a":1}']);
  });

  it('a gzip body, sent in pieces, is read decoded as it arrives', async () => {
    const packed = gzipSync('data: {"a":"é"}\n\n'.repeat(50));
    const {url} = await serve((_request, response) => {
      response.writeHead(200, {'content-encoding': 'gzip'});
      response.write(packed.subarray(0, 20));
      setTimeout(() => response.end(packed.subarray(20)), 10);
    });
    const answer = await send(url, {method: 'GET', headers: {'accept-encoding': 'gzip'}, signal: AbortSignal.timeout(5000)});
    expect((await readAll(answer)).join('')).toBe('data: {"a":"é"}\n\n'.repeat(50));
  });

  it('a body that all arrived while nobody read it is drained on close, so the next request reuses the connection', async () => {
    const {url, ports} = await serve((_request, response) => {
      response.writeHead(200);
      response.write('data: [DONE]\n\n');
      setTimeout(() => response.end(': trailing\n\n'), 5);
    });
    const first = await send(url, {method: 'GET', headers: {}, signal: AbortSignal.timeout(5000)});
    expect(await first.read()).toBe('data: [DONE]\n\n');
    // The reader stopped at [DONE]; the rest of the body arrives while it is busy elsewhere.
    await new Promise(resolve => setTimeout(resolve, 50));
    first.close();
    await new Promise(resolve => setTimeout(resolve, 20));
    const second = await send(url, {method: 'GET', headers: {}, signal: AbortSignal.timeout(5000)});
    await second.text(1000);
    expect(ports[1]).toBe(ports[0]);
  });

  it('a body whose end comes a moment after [DONE] keeps its connection; one that never ends is cut', async () => {
    let served = 0;
    const {url, ports} = await serve((_request, response) => {
      served++;
      response.writeHead(200);
      response.write('data: [DONE]\n\n');
      // The first ends 30 ms after [DONE]; the second never does.
      if (served === 1) setTimeout(() => response.end(), 30);
    });
    const get = () => send(url, {method: 'GET', headers: {}, signal: AbortSignal.timeout(5000)});
    const first = await get();
    expect(await first.read()).toBe('data: [DONE]\n\n');
    // Stopped at [DONE], before the body's end arrived.
    first.close();
    await new Promise(resolve => setTimeout(resolve, 100));
    const second = await get();
    expect(await second.read()).toBe('data: [DONE]\n\n');
    second.close();
    await new Promise(resolve => setTimeout(resolve, 700));
    const third = await get();
    await third.read();
    third.close();
    expect(ports[1]).toBe(ports[0]);
    expect(ports[2]).not.toBe(ports[1]);
  });

  it('a GET on a kept-alive connection the server dropped is tried again once, on a new connection; a POST is not sent twice', async () => {
    let served = 0;
    const seen: string[] = [];
    const {url, ports} = await serve((request, response) => {
      served++;
      seen.push(request.method ?? '');
      // The second request on each connection finds it closed (as an idle timeout does just as
      // the client reuses it).
      if (served === 2 || served === 5) return void request.socket.destroy();
      response.end(`answer ${served}`);
    });
    const get = () => send(url, {method: 'GET', headers: {}, signal: AbortSignal.timeout(5000)});
    expect(await (await get()).text(100)).toBe('answer 1');
    await new Promise(resolve => setTimeout(resolve, 20));
    expect(await (await get()).text(100)).toBe('answer 3');
    expect(ports[1]).toBe(ports[0]);
    expect(ports[2]).not.toBe(ports[0]);
    await new Promise(resolve => setTimeout(resolve, 20));
    expect(await (await get()).text(100)).toBe('answer 4');
    await new Promise(resolve => setTimeout(resolve, 20));
    // The server may have taken a chat request before the connection went: it is not resent here.
    await expect(send(url, {method: 'POST', headers: {}, body: 'x', signal: AbortSignal.timeout(5000)})).rejects.toThrow();
    expect(seen).toEqual(['GET', 'GET', 'GET', 'GET', 'POST']);
  });

  it('the scheme decides the module in any case', () => {
    expect(httpModule('HTTPS://api.example.com/v1')).toBe(process.getBuiltinModule('node:https'));
    expect(httpModule('http://127.0.0.1/v1')).toBe(process.getBuiltinModule('node:http'));
  });
});
