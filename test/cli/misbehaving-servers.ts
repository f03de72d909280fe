/**
 * Small misbehaving targets for the CLI tests of a run that cannot vouch for anything: one that
 * cuts every response off mid-body, one that sends headers and then stalls every body, and one that
 * answers correctly but slowly (a proxy to the embedded reference, 0–3 s per response).
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Local {
  readonly url: string;
  /** Requests received. */
  readonly seen: () => number;
  close(): Promise<void>;
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void): Promise<Local> {
  let seen = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen++;
      handler(req, res, Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen: () => seen,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

const ENVELOPE = '{"ok":true,"data":{"stored":0},"meta":{"request_id":"r"}}';

/** Headers and the first bytes of a JSON body, then the connection is destroyed. */
export function resetMidBody(): Promise<Local> {
  return listen((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(ENVELOPE) });
    res.write(ENVELOPE.slice(0, 10), () => res.destroy());
  });
}

/** Headers and the first bytes of a JSON body, then nothing (until the client gives up). */
export function headersThenStall(): Promise<Local> {
  return listen((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(ENVELOPE) });
    res.write(ENVELOPE.slice(0, 10));
  });
}

/** A correct target, slowly: every request is forwarded to `upstream` after a random 0–`maxDelayMs` wait. */
export function slowProxy(upstream: string, maxDelayMs = 3000): Promise<Local> {
  const up = new URL(upstream);
  return listen((req, res, body) => {
    const timer = setTimeout(() => {
      const out = request(
        { host: up.hostname, port: up.port, method: req.method, path: req.url, headers: { ...req.headers, host: up.host } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      out.end(body);
    }, Math.floor(Math.random() * maxDelayMs));
    res.on('close', () => clearTimeout(timer));
  });
}
