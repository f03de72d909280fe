/**
 * A staging network in miniature, for the tests of TLS, mutual TLS, proxies and gateway headers:
 * `node:https` servers on the committed test certificates of test/fixtures/tls (made by its
 * make.sh: no tool is needed to run the tests), and an HTTP proxy written here that forwards plain
 * requests in absolute form and tunnels CONNECT, maps every host name to 127.0.0.1 (so a target
 * named `staging.pouchproof.test` is reachable only through it) and records what it carried.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';

export const TLS_DIR = join(import.meta.dirname, '../fixtures/tls');
export const pem = (name: string): string => readFileSync(join(TLS_DIR, name), 'utf8');
export const TLS_FILE = (name: string): string => join(TLS_DIR, name);
export const CLIENT_PASSPHRASE = pem('client.passphrase');

export const OK_ENVELOPE = '{"ok":true,"data":{"stored":1},"meta":{"request_id":"r-1"}}';

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  /** The client certificate's subject CN, when one was presented and verified. */
  readonly clientCn?: string;
}

export interface Running {
  readonly url: string;
  readonly port: number;
  readonly seen: SeenRequest[];
  close(): Promise<void>;
}

function track(server: Server): () => Promise<void> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // A TLS server sees the raw socket on 'connection' and the TLS one on 'secureConnection'.
  server.on('secureConnection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
}

function answer(seen: SeenRequest[], body = OK_ENVELOPE) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    req.resume();
    req.on('end', () => {
      const peer = (req.socket as TLSSocket).getPeerCertificate?.();
      const cn = peer && typeof peer === 'object' && 'subject' in peer ? peer.subject?.CN : undefined;
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, ...(typeof cn === 'string' ? { clientCn: cn } : {}) });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  };
}

/**
 * An https server on one of the test certificates (`server`, `wrong-name`, `expired`); with
 * `clientCa`, it requires a client certificate signed by that CA (mutual TLS). `minVersion` pins it.
 */
export async function httpsServer(o: { cert?: 'server' | 'wrong-name' | 'expired'; requireClientCert?: boolean; maxVersion?: 'TLSv1.2' | 'TLSv1.3' } = {}): Promise<Running> {
  const name = o.cert ?? 'server';
  const seen: SeenRequest[] = [];
  const server = createHttpsServer(
    {
      cert: pem(`${name}.cert.pem`),
      key: pem(`${name}.key.pem`),
      ...(o.requireClientCert ? { requestCert: true, rejectUnauthorized: true, ca: pem('ca.cert.pem') } : {}),
      ...(o.maxVersion ? { maxVersion: o.maxVersion } : {}),
    },
    answer(seen),
  );
  server.on('tlsClientError', () => undefined);
  const close = track(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { url: `https://127.0.0.1:${port}`, port, seen, close };
}

/** A plain http server answering the OK envelope to everything. */
export async function httpServer(): Promise<Running> {
  const seen: SeenRequest[] = [];
  const server = createHttpServer(answer(seen));
  const close = track(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, port, seen, close };
}

export interface TestProxy {
  readonly url: string;
  /** Every CONNECT target (`host:port`) it was asked to tunnel, and whether it did. */
  readonly connects: Array<{ readonly target: string; readonly allowed: boolean }>;
  /** Every absolute-form request it forwarded (`METHOD url`). */
  readonly forwarded: string[];
  /** Proxy-Authorization values it saw. */
  readonly auth: Array<string | undefined>;
  close(): Promise<void>;
}

/**
 * An HTTP proxy: absolute-form requests are forwarded, CONNECT is tunnelled, both to 127.0.0.1 at
 * the port asked for (any host name). With `credentials` (`user:password`) it answers 407 without them.
 */
export async function connectProxy(o: { credentials?: string } = {}): Promise<TestProxy> {
  const connects: Array<{ target: string; allowed: boolean }> = [];
  const forwarded: string[] = [];
  const auth: Array<string | undefined> = [];
  const expected = o.credentials ? `Basic ${Buffer.from(o.credentials).toString('base64')}` : undefined;
  const allowed = (h: IncomingMessage['headers']): boolean => {
    auth.push(h['proxy-authorization']);
    return expected === undefined || h['proxy-authorization'] === expected;
  };
  const server = createHttpServer((req, res) => {
    const ok = allowed(req.headers);
    if (!ok) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"', 'content-length': 0 });
      res.end();
      return;
    }
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400, { 'content-length': 0 });
      res.end();
      return;
    }
    forwarded.push(`${req.method} ${req.url}`);
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const out = httpRequest({ host: '127.0.0.1', port: Number(target.port || 80), method: req.method, path: target.pathname + target.search, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-length': 0 });
      res.end();
    });
    req.pipe(out);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    const ok = allowed(req.headers);
    connects.push({ target, allowed: ok });
    client.on('error', () => undefined);
    if (!ok) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const port = Number(/:(\d+)$/.exec(target)?.[1] ?? 443);
    const up = connect({ host: '127.0.0.1', port }, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    up.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n'));
    client.on('close', () => up.destroy());
    up.on('close', () => client.destroy());
  });
  const close = track(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connects, forwarded, auth, close };
}

/**
 * A staging front: an https server (on the `server` test certificate, requiring a client
 * certificate when asked) that forwards every request to `upstream` (e.g. the embedded reference)
 * and records what came in, as a TLS-terminating gateway does.
 */
export async function tlsFront(upstream: string, o: { requireClientCert?: boolean } = {}): Promise<Running> {
  const up = new URL(upstream);
  const seen: SeenRequest[] = [];
  const server = createHttpsServer(
    { cert: pem('server.cert.pem'), key: pem('server.key.pem'), ...(o.requireClientCert ? { requestCert: true, rejectUnauthorized: true, ca: pem('ca.cert.pem') } : {}) },
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate?.();
      const cn = peer && typeof peer === 'object' && 'subject' in peer ? peer.subject?.CN : undefined;
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, ...(typeof cn === 'string' ? { clientCn: cn } : {}) });
      const out = httpRequest({ host: up.hostname, port: up.port, method: req.method, path: req.url, headers: { ...req.headers, host: up.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on('error', () => res.destroy());
      req.pipe(out);
    },
  );
  server.on('tlsClientError', () => undefined);
  const close = track(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { url: `https://127.0.0.1:${port}`, port, seen, close };
}
