import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';
import {afterEach, describe, expect, it} from 'vitest';
import {send} from '../../../source/agent/provider/http.js';

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
});
