import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDeviceKey } from '../../src/crypto/keys.ts';
import { CUT_BODY_KEPT_BYTES, TargetClient } from '../../src/target/client.ts';
import { RESPONSE_BODY_BOUND_BYTES } from '../../src/spec/index.ts';
import { parseProfile, profileForUrl, type Profile } from '../../src/target/profile.ts';
import { besideTimer } from '../timing.ts';

const BROWSER_TOKEN = 'b-secret-0f9e8d7c6b';
const DEVICE_TOKEN = 'd-secret-1a2b3c4d5e';
const DEVICE_ID = '3f0e8a52-6c1d-4b7e-9a2f-0c5d8e7b6a14';
const key = generateDeviceKey();

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}
let last: Seen | undefined;
const sockets = new Set<import('node:net').Socket>();

const OK_ENVELOPE = { ok: true, data: { stored: 1 }, meta: { request_id: 'r-1' } };
const HUGE_BYTES = 100 * 1024 * 1024;
/** Bytes the last flood handed to its socket before the client went away. */
let floodSent = 0;

function json(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Writes `total` bytes with backpressure, stopping when the client goes away. */
function flood(res: ServerResponse, total: number): void {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let sent = 0;
  floodSent = 0;
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': total });
  const pump = (): void => {
    while (sent < total && !res.destroyed) {
      sent += chunk.length;
      floodSent = sent;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

const behaviours: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  ok: (_q, r) => json(r, 200, OK_ENVELOPE),
  okCharset: (_q, r) => json(r, 201, OK_ENVELOPE, 'application/json; charset=utf-8'),
  garbage: (_q, r) => json(r, 200, '\u0000\u00ffnot json{{', 'application/json'),
  html200: (_q, r) => json(r, 200, '<html><body>Welcome</body></html>', 'text/html'),
  html500: (_q, r) => json(r, 500, '<html><body>Internal error</body></html>', 'text/html'),
  empty200: (_q, r) => json(r, 200, ''),
  badData: (_q, r) => json(r, 200, { ok: true, data: { stored: 1.5 }, meta: { request_id: 'r' } }),
  noMeta: (_q, r) => json(r, 200, { ok: true, data: { stored: 1 } }),
  okFalse2xx: (_q, r) => json(r, 200, { ok: false, data: {}, meta: { request_id: 'r' } }),
  ok4xx: (_q, r) => json(r, 400, { ok: true, data: { stored: 1 }, meta: { request_id: 'r' } }),
  rejected: (_q, r) => json(r, 409, { ok: false, error: { code: 'stale_base' } }),
  rejectedHtml: (_q, r) => json(r, 404, '<h1>Not Found</h1>', 'text/html'),
  redirect: (_q, r) => {
    r.writeHead(302, { location: 'http://elsewhere.test/', 'content-length': 0 });
    r.end();
  },
  reset: (_q, r) => {
    r.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
    r.write('{"ok": true, "data": {');
    setTimeout(() => r.socket?.destroy(), 20);
  },
  resetBeforeHeaders: (q) => q.socket.destroy(),
  stallBody: (_q, r) => {
    r.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
    r.write('{"ok": true');
  },
  stallHeaders: () => {},
  huge: (_q, r) => flood(r, HUGE_BYTES),
  echo: (_q, r) => json(r, 200, OK_ENVELOPE),
};

let server: Server;
let base: string;
let profile: Profile;
let client: TargetClient;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      last = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) };
      const name = decodeURIComponent(req.url!.split('/').pop() ?? '');
      (behaviours[name] ?? behaviours['ok']!)(req, res);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  profile = parseProfile(
    {
      baseUrl: base,
      accounts: {
        primary: {
          browser: { headers: { authorization: `Bearer ${BROWSER_TOKEN}` } },
          device: { headers: { authorization: `Bearer ${DEVICE_TOKEN}` }, deviceId: DEVICE_ID, privateJwk: key.privateJwk as { kty: string } },
        },
      },
      timeouts: { requestMs: 3000 },
      connections: 4,
    },
    { env: {} },
  );
  client = new TargetClient(profile);
});

afterAll(async () => {
  await client.close();
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});

const usage = (behaviour: string, extra: Partial<Parameters<TargetClient['call']>[0]> = {}) =>
  client.call({ endpoint: 'reportUsage', params: { sourceId: behaviour }, body: { rows: [] }, ...extra });

describe('requests as sent', () => {
  it('serialises the body as JSON and records exactly what was sent', async () => {
    const ex = await usage('echo', { body: { rows: [], note: 'é' } });
    expect(ex.verdict).toBe('accepted');
    expect(ex.request.method).toBe('PUT');
    expect(ex.request.url).toBe(`${base}/v1/usage/sources/echo`);
    expect(Buffer.from(ex.request.body).toString('utf8')).toBe(JSON.stringify({ rows: [], note: 'é' }));
    expect(last!.body.equals(Buffer.from(ex.request.body))).toBe(true);
    expect(last!.headers['content-type']).toBe('application/json');
    expect(ex.request.headers['content-type']).toBe('application/json');
    expect(ex.request.headers['content-length']).toBe(String(ex.request.body.byteLength));
    expect(ex.response?.json).toEqual(OK_ENVELOPE);
    expect(ex.timings.headersMs).toBeGreaterThanOrEqual(0);
    expect(ex.timings.totalMs).toBeGreaterThanOrEqual(ex.timings.headersMs!);
  });

  it('uses the catalogue caller kind by default, another identity with `as`, none when anonymous', async () => {
    await usage('echo'); // 4.3 is a device's call
    expect(last!.headers['authorization']).toBe(`Bearer ${DEVICE_TOKEN}`);
    expect(last!.headers['service-signature']).toBeUndefined(); // 4.3 is not signed
    await client.call({ endpoint: 'revokeBrowser', params: { id: 'echo' }, body: {} });
    expect(last!.headers['authorization']).toBe(`Bearer ${BROWSER_TOKEN}`);
    await usage('echo', { as: { member: 'browser' } });
    expect(last!.headers['authorization']).toBe(`Bearer ${BROWSER_TOKEN}`);
    await usage('echo', { as: 'anonymous' });
    expect(last!.headers['authorization']).toBeUndefined();
  });

  it('throws for programmer errors: unknown endpoint, missing account', async () => {
    await expect(client.call({ endpoint: 'nope' as 'reportUsage', params: {} })).rejects.toThrow(/unknown endpoint nope/);
    await expect(usage('echo', { as: { account: 'secondary', member: 'device' } })).rejects.toThrow(/no secondary account/);
  });

  it('headers add, override and remove; rawBody is sent verbatim', async () => {
    const ex = await usage('echo', {
      rawBody: '{"rows":[] , "rows":[1]}',
      headers: { 'X-Extra': 'yes', 'Content-Type': 'text/plain', authorization: undefined },
    });
    expect(last!.body.toString()).toBe('{"rows":[] , "rows":[1]}');
    expect(last!.headers['x-extra']).toBe('yes');
    expect(last!.headers['content-type']).toBe('text/plain');
    expect(last!.headers['authorization']).toBeUndefined();
    expect(ex.request.headers['authorization']).toBeUndefined();
    expect(ex.request.headers['x-extra']).toBe('yes');
  });

  it('keeps dot segments and encodes hostile path parameters', async () => {
    const ex = await client.call({ endpoint: 'revokeBrowser', params: { id: '..' }, body: {} });
    expect(ex.request.url).toBe(`${base}/v1/browsers/../revoke`);
    expect(last!.url).toBe('/v1/browsers/../revoke');
    await client.call({ endpoint: 'revokeBrowser', params: { id: 'a/b?c' }, body: {} });
    expect(last!.url).toBe('/v1/browsers/a%2Fb%3Fc/revoke');
  });
});

describe('classification against a hostile server', () => {
  const cases: [string, string, RegExp][] = [
    ['ok', 'accepted', /accepted with 200/],
    ['okCharset', 'accepted', /201/],
    ['garbage', 'protocol-error', /not JSON/],
    ['html200', 'protocol-error', /content type "text\/html".*not application\/json/],
    ['html500', 'server-error', /500/],
    ['empty200', 'protocol-error', /empty body/],
    ['badData', 'protocol-error', /data\.stored: integer/],
    ['noMeta', 'protocol-error', /meta: required/],
    ['okFalse2xx', 'rejected', /refused with 200 and ok: false/],
    ['ok4xx', 'protocol-error', /400 but the body says ok: true/],
    ['rejected', 'rejected', /rejected with 409 \("stale_base"\)/],
    ['rejectedHtml', 'rejected', /rejected with 404/],
    ['redirect', 'protocol-error', /redirect 302/],
    ['reset', 'transport-error', /connection closed by the target during the response body/],
    ['resetBeforeHeaders', 'transport-error', /connection closed by the target before a response/],
  ];
  for (const [behaviour, verdict, reason] of cases) {
    it(`${behaviour} → ${verdict}`, async () => {
      const ex = await usage(behaviour);
      expect(ex.verdict).toBe(verdict);
      expect(ex.reason).toMatch(reason);
    });
  }

  it('a body cut mid-way keeps what arrived, marked incomplete', async () => {
    const ex = await usage('reset');
    expect(ex.response?.status).toBe(200);
    expect(ex.response?.body).toBe('{"ok": true, "data": {');
    expect(ex.response?.truncated).toBe(true);
  });

  it('a response body that stalls is cut at the time bound', async () => {
    const timeoutMs = 300;
    const { value: ex, timerMs } = await besideTimer(timeoutMs, () => usage('stallBody', { timeoutMs }));
    expect(ex.verdict).toBe('transport-error');
    expect(ex.reason).toBe(`the response body did not finish within ${timeoutMs} ms`);
    expect(ex.response?.body).toBe('{"ok": true');
    // Not before the bound (a timer may fire a millisecond early), and at it rather than at a later one:
    // within a few times what a timer of the bound, set beside the call, took on this machine just now.
    expect(ex.timings.totalMs).toBeGreaterThanOrEqual(timeoutMs - 10);
    expect(ex.timings.totalMs).toBeLessThan(3 * timerMs);
  });

  it('a server that never answers is cut at the profile request time bound', async () => {
    const requestMs = 250;
    const quick = new TargetClient(parseProfile({ baseUrl: base, timeouts: { requestMs } }));
    try {
      const { value: ex, timerMs } = await besideTimer(requestMs, () => quick.call({ endpoint: 'reportUsage', params: { sourceId: 'stallHeaders' }, body: { rows: [] } }));
      expect(ex.verdict).toBe('transport-error');
      expect(ex.reason).toBe(`no response within ${requestMs} ms`);
      expect(ex.response).toBeUndefined();
      // At the profile's bound, not at a later one: within a few times a timer of it set beside the call.
      expect(ex.timings.totalMs).toBeLessThan(3 * timerMs);
    } finally {
      await quick.close();
    }
  });

  it('a 100 MB body is cut at the bound derived from the spec, without buffering it: a transport failure, never a judgement', async () => {
    const before = process.memoryUsage().rss;
    const ex = await usage('huge', { timeoutMs: 15_000 });
    const growth = process.memoryUsage().rss - before;
    expect(profile.limits.responseBytes).toBe(RESPONSE_BODY_BOUND_BYTES);
    expect(ex.verdict).toBe('transport-error');
    expect(ex.failure).toBe('other');
    expect(ex.reason).toBe(`response body over ${RESPONSE_BODY_BOUND_BYTES} bytes (HTTP 200): more than any answer the spec allows; the rest was not read (limits.responseBytes in the profile raises the bound)`);
    expect(ex.response?.truncated).toBe(true);
    // Only an excerpt of a cut body is kept.
    expect(ex.response?.body.length).toBe(CUT_BODY_KEPT_BYTES);
    expect(ex.response?.json).toBeUndefined();
    expect(growth).toBeLessThan(60 * 1024 * 1024);
    // The client stopped reading: the server could hand over little more than the cap plus socket buffers.
    await new Promise((r) => setTimeout(r, 100));
    expect(floodSent).toBeLessThan(HUGE_BYTES / 2);
  });

  it('a smaller cap applies when configured', async () => {
    const small = new TargetClient(profile, { maxResponseBytes: 1000 });
    try {
      const ex = await small.call({ endpoint: 'reportUsage', params: { sourceId: 'huge' }, body: { rows: [] } });
      expect(ex.response?.body.length).toBe(1000);
      expect(ex.response?.truncated).toBe(true);
      expect(ex.reason).toMatch(/^response body over 1000 bytes/);
    } finally {
      await small.close();
    }
  });

  it('a refused connection is a transport error', async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as AddressInfo).port;
    await new Promise<void>((r) => s.close(() => r()));
    const c = new TargetClient(profileForUrl(`http://127.0.0.1:${port}`));
    try {
      const ex = await c.call({ endpoint: 'reportUsage', params: { sourceId: 'x' }, body: { rows: [] } });
      expect(ex.verdict).toBe('transport-error');
      expect(ex.reason).toBe(`connection refused by 127.0.0.1:${port}`);
      expect(ex.request.headers['authorization']).toBeUndefined();
    } finally {
      await c.close();
    }
  });

  it('still serves normally after all of the above', async () => {
    const all = await Promise.all(Array.from({ length: 8 }, () => usage('ok')));
    expect(all.map((e) => e.verdict)).toEqual(Array(8).fill('accepted'));
    expect(new Set(all.map((e) => e.id)).size).toBe(8);
  });
});
