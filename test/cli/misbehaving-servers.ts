/**
 * Small misbehaving targets for the CLI tests of a run that cannot vouch for anything: one that
 * cuts every response off mid-body, one that sends headers and then stalls every body, and one that
 * answers correctly but slowly (a proxy to the embedded reference, 0–3 s per response); and, for
 * the load engine, an endless body, a dripped body, all 500s and one that hangs on every nth request.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
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

/** A 200 whose body never ends: chunks as fast as the client reads them, until it hangs up. */
export function endlessBody(): Promise<Local> {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  return listen((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"ok":true,"data":"');
    const pump = (): void => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  });
}

/** A 200 whose body comes one byte every `everyMs`, forever. */
export function dripBody(everyMs = 20): Promise<Local> {
  return listen((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const timer = setInterval(() => res.write(' '), everyMs);
    res.on('close', () => clearInterval(timer));
  });
}

/** Every response a 500 with a small JSON error. */
export function always500(): Promise<Local> {
  return listen((_req, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end('{"ok":false,"error":{"code":"internal"}}');
  });
}

/** Answers at once, except every `n`th request, which is never answered. */
export function hangEvery(n: number): Promise<Local> {
  let i = 0;
  return listen((_req, res) => {
    if (++i % n === 0) return;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(ENVELOPE) });
    res.end(ENVELOPE);
  });
}

/**
 * A gateway in front of `upstream` that throttles: above `perSecond` requests in the current second
 * it answers 429 with Retry-After: 1 and forwards nothing, as a staging deployment's rate limit may.
 * `throttled()` counts the 429s it sent.
 */
export async function throttlingGateway(upstream: string, perSecond: number): Promise<Local & { readonly throttled: () => number }> {
  const up = new URL(upstream);
  let windowStart = Date.now();
  let inWindow = 0;
  let throttled = 0;
  const local = await listen((req, res, body) => {
    const now = Date.now();
    if (now - windowStart >= 1000) {
      windowStart = now;
      inWindow = 0;
    }
    if (++inWindow > perSecond) {
      throttled++;
      const text = '{"error":"rate limited"}';
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1', 'content-length': Buffer.byteLength(text) });
      res.end(text);
      return;
    }
    const out = request({ host: up.hostname, port: up.port, method: req.method, path: req.url, headers: { ...req.headers, host: up.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    out.end(body);
  });
  return { ...local, throttled: () => throttled };
}

/** A correct target that answers one request in `fastEvery` at once and holds every other for `delayMs` first. */
export function mostlySlowProxy(upstream: string, fastEvery: number, delayMs: number): Promise<Local> {
  const up = new URL(upstream);
  let n = 0;
  return listen((req, res, body) => {
    const wait = n++ % fastEvery === 0 ? 0 : delayMs;
    const timer = setTimeout(() => {
      const out = request({ host: up.hostname, port: up.port, method: req.method, path: req.url, headers: { ...req.headers, host: up.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on('error', () => res.destroy());
      out.end(body);
    }, wait);
    res.on('close', () => clearTimeout(timer));
  });
}

/**
 * Every answer garbage: a random status among 200, 400 and 500, a JSON content type, and 0–2 KiB of
 * random bytes that are no JSON at all (the memory benchmark's worst case: every case a finding).
 */
export function garbage(): Promise<Local> {
  const statuses = [200, 400, 500] as const;
  return listen((_req, res) => {
    const body = randomBytes(Math.floor(Math.random() * 2048));
    res.writeHead(statuses[Math.floor(Math.random() * statuses.length)] ?? 200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
}
