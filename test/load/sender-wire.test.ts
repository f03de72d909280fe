/**
 * The engine's own HTTP/1.1 connections against real servers (node:http, node:https, raw sockets):
 * what goes on the wire, connection reuse and reopening, every framing a server may choose, and a
 * clear error for whatever is not HTTP.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { LoadRequest } from '../../src/load/scenario.ts';
import { InvalidRequestError, Sender } from '../../src/load/http1/sender.ts';

const req = (body = '{"a":1}', headers: Record<string, string> = { authorization: 'Bearer t', 'content-type': 'application/json' }, path = '/p/x?y=1'): LoadRequest => ({ method: 'POST', path, headers, body, kind: 'k' });

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  readonly socket: Socket;
}

async function http(handler: (res: ServerResponse, seen: Seen) => void, tune?: (s: Server) => void): Promise<{ url: string; seen: Seen[]; connections: () => number }> {
  const seen: Seen[] = [];
  let connections = 0;
  const server = createServer((rq, res) => {
    const chunks: Buffer[] = [];
    rq.on('data', (c: Buffer) => chunks.push(c));
    rq.on('end', () => {
      const s: Seen = { method: rq.method!, url: rq.url!, headers: rq.headers, body: Buffer.concat(chunks).toString('utf8'), socket: rq.socket };
      seen.push(s);
      handler(res, s);
    });
  });
  server.on('connection', () => connections++);
  tune?.(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/base/`, seen, connections: () => connections };
}

/** A TCP server that answers every connection's first bytes with `answer` (then, if asked, closes). */
async function raw(answer: (socket: Socket) => void): Promise<string> {
  const server: NetServer = createNetServer((s) => {
    s.on('error', () => undefined);
    s.once('data', () => answer(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const sockets = new Set<Socket>();
  server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
  cleanups.push(() => new Promise<void>((r) => { for (const s of sockets) s.destroy(); server.close(() => r()); }));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function sender(url: string, connections = 1, timeoutMs = 5000, ca?: string): Sender {
  const s = new Sender(url, connections, timeoutMs, undefined, ca === undefined ? {} : { tls: { ca, origins: {} } });
  cleanups.push(() => s.close());
  return s;
}

const failure = (p: Promise<unknown>): Promise<Error> => p.then(() => new Error('answered'), (e: unknown) => e as Error);

describe('Sender on the wire', () => {
  it('writes the method, the base path and the request path, Host, the headers, Content-Length and the body', async () => {
    const srv = await http((res) => res.end('{"ok":true}'));
    const body = '{"text":"é€"}';
    const r = await sender(srv.url).request(req(body));
    expect(r).toEqual({ status: 200, body: '{"ok":true}' });
    const s = srv.seen[0]!;
    expect(s.method).toBe('POST');
    expect(s.url).toBe('/base/p/x?y=1');
    expect(s.headers).toMatchObject({ host: new URL(srv.url).host, authorization: 'Bearer t', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    expect(s.body).toBe(body);
  });

  it('keeps one connection for many requests, and opens as many as asked when they overlap', async () => {
    const srv = await http((res) => setTimeout(() => res.end('ok'), 5));
    const one = sender(srv.url, 1);
    for (let i = 0; i < 20; i++) expect((await one.request(req())).status).toBe(200);
    expect(srv.connections()).toBe(1);
    const four = sender(srv.url, 4);
    const all = await Promise.all(Array.from({ length: 40 }, () => four.request(req())));
    expect(all.every((r) => r.status === 200)).toBe(true);
    expect(srv.connections()).toBe(1 + 4);
  });

  it('reads chunked answers, answers that close the connection, and answers whose body runs until close', async () => {
    let n = 0;
    const srv = await http((res) => {
      const k = n++ % 3;
      if (k === 0) {
        res.write('{"part":');
        setTimeout(() => res.end('1}'), 5);
      } else if (k === 1) {
        res.setHeader('connection', 'close');
        res.end('closing');
      } else {
        // HTTP/1.0-style: no length, no chunking; the end of the connection ends the body.
        res.socket!.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nuntil close');
        res.socket!.end();
      }
    });
    const s = sender(srv.url, 1);
    const got: string[] = [];
    for (let i = 0; i < 6; i++) got.push((await s.request(req())).body);
    expect(got).toEqual(['{"part":1}', 'closing', 'until close', '{"part":1}', 'closing', 'until close']);
  });

  it('reopens a connection the server closed while idle, and does not reuse one past the advertised keep-alive timeout', async () => {
    const srv = await http((res) => res.end('ok'), (s) => (s.keepAliveTimeout = 1000));
    const s = sender(srv.url, 1);
    expect((await s.request(req())).status).toBe(200);
    // Node advertises Keep-Alive: timeout=1; the sender stops reusing a second before that, so the
    // next request opens a new connection rather than racing the server's close.
    await new Promise((r) => setTimeout(r, 50));
    expect((await s.request(req())).status).toBe(200);
    expect(srv.connections()).toBe(2);
    await new Promise((r) => setTimeout(r, 1300));
    expect((await s.request(req())).status).toBe(200);
    expect(srv.connections()).toBe(3);
  });

  it('refuses a header or a path that would break the message, before anything is sent', async () => {
    const srv = await http((res) => res.end('ok'));
    const s = sender(srv.url);
    for (const [headers, path, what] of [
      [{ 'x-bad': 'a\r\nb' }, '/p', /invalid x-bad header/],
      [{ 'bad name': 'v' }, '/p', /invalid bad name header/],
      [{ 'content-length': '1' }, '/p', /invalid content-length header/],
      [{ 'Transfer-Encoding': 'chunked' }, '/p', /invalid Transfer-Encoding header/],
      [{}, '/p q', /invalid request path/],
      [{}, '/p\r\nx', /invalid request path/],
    ] as const) {
      const e = await failure(s.request(req('{}', headers, path)));
      expect(e).toBeInstanceOf(InvalidRequestError);
      expect(e.message).toMatch(what);
    }
    expect(srv.seen).toHaveLength(0);
    expect(s.inFlight.size).toBe(0);
  });

  it('uses the profile\'s own Host header when it has one', async () => {
    const srv = await http((res) => res.end('ok'));
    await sender(srv.url).request(req('{}', { Host: 'staging.example' }));
    expect(srv.seen[0]!.headers.host).toBe('staging.example');
  });

  it('names what went wrong: refused, reset mid-body, not HTTP, stray bytes', async () => {
    // A port nobody listens on: bind one, then close it.
    const gone = createNetServer();
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
    const goneUrl = `http://127.0.0.1:${(gone.address() as AddressInfo).port}`;
    await new Promise<void>((r) => gone.close(() => r()));
    expect((await failure(sender(goneUrl).request(req()))) as NodeJS.ErrnoException).toMatchObject({ code: 'ECONNREFUSED' });

    const reset = await raw((s) => s.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"ok":'));
    expect((await failure(sender(reset).request(req()))).message).toBe('connection closed before the response ended');

    const ssh = await raw((s) => s.write('SSH-2.0-OpenSSH_9.2\r\n\r\n'));
    expect((await failure(sender(ssh).request(req()))).message).toMatch(/^malformed response: not an HTTP\/1.x status line/);

    // An answer, then bytes nobody asked for: the next request goes out on a fresh connection.
    let conns = 0;
    const stray = await raw((s) => {
      conns++;
      s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
      setTimeout(() => s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nno'), 20);
    });
    const st = sender(stray);
    expect((await st.request(req())).body).toBe('ok');
    await new Promise((r) => setTimeout(r, 80));
    expect((await st.request(req())).body).toBe('ok');
    expect(conns).toBe(2);
  });

  it('speaks TLS to an https target', async () => {
    // A self-signed test certificate for localhost and 127.0.0.1, valid until 2126 (made with openssl
    // req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256): a fixture, so no tool is needed here.
    const cert = readFileSync(new URL('fixtures/tls-localhost.cert.pem', import.meta.url), 'utf8');
    const key = readFileSync(new URL('fixtures/tls-localhost.key.pem', import.meta.url));
    const server = createHttpsServer({ key, cert }, (rq, res) => {
      rq.resume();
      rq.on('end', () => res.end(`{"secure":true,"alpn":"${(rq.socket as import('node:tls').TLSSocket).alpnProtocol || 'none'}"}`));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
    const port = (server.address() as AddressInfo).port;
    for (const host of ['127.0.0.1', 'localhost']) {
      const r = await sender(`https://${host}:${port}`, 1, 5000, cert).request(req());
      expect(r).toEqual({ status: 200, body: '{"secure":true,"alpn":"http/1.1"}' });
    }
    // Without the certificate trusted, the connection is refused with the TLS reason, in one line naming the field to set.
    const e = await failure(sender(`https://127.0.0.1:${port}`).request(req()));
    expect(e.message).toMatch(new RegExp(`^the certificate of 127\\.0\\.0\\.1:${port} is not trusted \\(.*\\): set tls\\.ca in the profile`));
  });
});
