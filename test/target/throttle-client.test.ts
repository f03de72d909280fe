/**
 * Throttling that is throttling, through the client against local servers: one request refused 503
 * with Retry-After again and again, at any rate, ends as the server error it is after
 * DEFAULT_MAX_RETRIES retries; a server that throttles everything for a while, or above a rate, is
 * still waited out to its answers; a later request refused the same way is sent again once, not
 * DEFAULT_MAX_RETRIES times.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { unexpected } from '../../src/check/judge/judge.ts';
import { TargetClient, type Exchange } from '../../src/target/client.ts';
import { parseProfile } from '../../src/target/profile.ts';
import { DEFAULT_MAX_RETRIES, KIND_PROVEN, KNOWN_KIND_RETRIES, type ThrottleOptions } from '../../src/target/throttle.ts';

const OK = JSON.stringify({ ok: true, data: { stored: 1 }, meta: { request_id: 'r-1' } });
const BUSY = JSON.stringify({ ok: false, data: {}, meta: { request_id: 'r-2' }, error: { code: 'busy' } });
/** The body of the one request the "own refusal" server refuses. */
const REFUSED_MODEL = 'refuse-this-one';
/**
 * A cap, so the run's rate halves from it rather than from what a lone test request sends (about
 * 1/s, already the floor): throttled sends are then paced tens of milliseconds apart, not a second.
 */
const CAP: ThrottleOptions = { ratePerSecond: 64 };

type Answer = (body: string, n: number) => { readonly status: number; readonly retryAfter?: string };

let server: Server | undefined;
let client: TargetClient | undefined;
afterEach(async () => {
  await client?.close();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = client = undefined;
});

/** A server answering each request as `answer` says (n: requests so far, this one included), and the client to it. */
async function serve(answer: Answer, throttle: ThrottleOptions): Promise<{ readonly client: TargetClient; readonly seen: () => number }> {
  let n = 0;
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const a = answer(Buffer.concat(chunks).toString('utf8'), ++n);
      const text = a.status === 200 ? OK : BUSY;
      res.writeHead(a.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...(a.retryAfter !== undefined ? { 'retry-after': a.retryAfter } : {}) });
      res.end(text);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const profile = parseProfile({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: 16 }, { env: {} });
  client = new TargetClient(profile, { throttle });
  return { client, seen: () => n };
}

const report = (c: TargetClient, model: string): Promise<Exchange> =>
  c.call({ endpoint: 'reportUsage', params: { sourceId: '0123456789abcdef0123456789abcdef' }, body: { rows: [{ model }] }, as: 'anonymous' });

/** Refuses the one request with REFUSED_MODEL in its body, 503 with Retry-After: 0, at any rate; answers every other. */
const refusesOne: Answer = (body) => (body.includes(REFUSED_MODEL) ? { status: 503, retryAfter: '0' } : { status: 200 });

describe('a refusal that stays with one request', () => {
  it('while requests sent meanwhile are answered: a server error on it after DEFAULT_MAX_RETRIES retries', async () => {
    const { client: c } = await serve(refusesOne, CAP);
    let done = false;
    const refused = report(c, REFUSED_MODEL).finally(() => (done = true));
    let others = 0;
    while (!done) {
      expect((await report(c, 'other')).verdict).toBe('accepted');
      others++;
    }
    const ex = await refused;
    expect(others).toBeGreaterThan(0);
    expect(ex.response?.status).toBe(503);
    expect(ex.verdict).toBe('server-error');
    // Given up once it had been sent again DEFAULT_MAX_RETRIES times and a request sent after its first
    // refusal was answered: on a loaded machine that answer may come a retry or two later, never sooner.
    const retries = ex.throttled?.retries ?? 0;
    expect(retries).toBeGreaterThanOrEqual(DEFAULT_MAX_RETRIES);
    expect(ex.throttled?.givenUp).toBe('served');
    expect(ex.throttled?.cutShort).toBeUndefined();
    // The judges take it as the server error it is, not as throttling or the network.
    const o = unexpected(ex);
    expect(o?.ok === false && o.kind).toBe('server-error');
    expect(o?.ok === false && o.message).toMatch(new RegExp(`refused ${retries + 1} times in a row, while requests sent meanwhile were answered.*not throttling`));
    // Given up, it is no throttle of the run: only the refusals before it were.
    expect(c.throttling().throttled).toBe(retries);
  });

  it('with nothing else sent: given up all the same, after as many retries (configurable)', async () => {
    const { client: c, seen } = await serve(refusesOne, { ...CAP, maxRetries: 2 });
    const ex = await report(c, REFUSED_MODEL);
    expect(ex.verdict).toBe('server-error');
    expect(ex.throttled).toMatchObject({ retries: 2, givenUp: 'alone' });
    expect(seen()).toBe(3);
  });

  it('a 429 that stays is given up too, and left unjudged (no rate limit is shown)', async () => {
    const { client: c } = await serve((body) => (body.includes(REFUSED_MODEL) ? { status: 429, retryAfter: '0' } : { status: 200 }), CAP);
    const ex = await report(c, REFUSED_MODEL);
    expect(ex.throttled).toMatchObject({ retries: DEFAULT_MAX_RETRIES, givenUp: 'alone' });
    const o = unexpected(ex);
    expect(o?.ok === false && o.kind).toBe('transport');
    expect(o?.ok === false && o.message).toMatch(/throttled \(HTTP 429.*not judged/);
  });
});

describe('a kind of refusal given up before', () => {
  it('is sent again KNOWN_KIND_RETRIES times, then not at all once KIND_PROVEN were given up, and the message says why; another status of the endpoint is not', async () => {
    let status = 503;
    const { client: c, seen } = await serve((body) => (body.includes(REFUSED_MODEL) ? { status, retryAfter: '0' } : { status: 200 }), CAP);
    const sentFor = async (): Promise<{ readonly ex: Exchange; readonly sent: number }> => {
      const from = seen();
      const ex = await report(c, REFUSED_MODEL);
      return { ex, sent: seen() - from };
    };
    const first = await sentFor();
    expect(first.ex.throttled).toMatchObject({ retries: DEFAULT_MAX_RETRIES, givenUp: 'alone' });
    expect(first.ex.throttled?.known).toBeUndefined();
    const second = await sentFor();
    expect(second.ex.throttled).toMatchObject({ retries: KNOWN_KIND_RETRIES, givenUp: 'alone', known: 1 });
    expect(second.sent).toBe(KNOWN_KIND_RETRIES + 1);
    const o = unexpected(second.ex);
    expect(o?.ok === false && o.kind).toBe('server-error');
    expect(o?.ok === false && o.message).toMatch(/as an earlier request to this endpoint was refused with this status however long it backed off.*not throttling/);
    expect(KIND_PROVEN).toBe(2);
    const third = await sentFor();
    expect(third.ex.throttled).toMatchObject({ retries: 0, givenUp: 'known', known: KIND_PROVEN });
    expect(third.sent).toBe(1);
    const p = unexpected(third.ex);
    expect(p?.ok === false && p.kind).toBe('server-error');
    expect(p?.ok === false && p.message).toMatch(/refused as 2 earlier requests to this endpoint were .* not sent again.*not throttling/);
    // A 429 from the same endpoint is another kind: waited out as long as any first refusal.
    status = 429;
    expect((await report(c, REFUSED_MODEL)).throttled).toMatchObject({ retries: DEFAULT_MAX_RETRIES, givenUp: 'alone' });
  });
});

describe('throttling that is throttling is still waited out', () => {
  it('a server that throttles everything for its first requests, then answers: the lone request is answered', async () => {
    const { client: c, seen } = await serve((_b, n) => (n <= DEFAULT_MAX_RETRIES ? { status: 503, retryAfter: '0' } : { status: 200 }), CAP);
    const ex = await report(c, 'any');
    expect(ex.verdict).toBe('accepted');
    expect(ex.throttled).toMatchObject({ retries: DEFAULT_MAX_RETRIES });
    expect(ex.throttled?.givenUp).toBeUndefined();
    expect(seen()).toBe(DEFAULT_MAX_RETRIES + 1);
  });

  it('everything refused past maxRetries while several requests wait: none given up, every one answered', async () => {
    // Few, as every refusal halves the rate toward its floor of one request a second.
    const requests = 2;
    const maxRetries = 1;
    // Each request refused about twice as often as maxRetries allows, while the others are refused too.
    const refusals = requests * (2 * maxRetries + 1);
    const { client: c } = await serve((_b, n) => (n <= refusals ? { status: 503, retryAfter: '0' } : { status: 200 }), { ...CAP, maxRetries });
    const all = await Promise.all(Array.from({ length: requests }, (_, i) => report(c, `m${i}`)));
    for (const ex of all) {
      expect(ex.verdict).toBe('accepted');
      expect(ex.throttled?.givenUp).toBeUndefined();
    }
    expect(Math.max(...all.map((ex) => ex.throttled?.retries ?? 0))).toBeGreaterThan(maxRetries);
    expect(c.throttling().throttled).toBe(refusals);
  });

  it('a gateway that refuses above a rate (503, Retry-After: 1, per one-second window): every request answered, none given up', async () => {
    const perWindow = 5;
    let windowStart = Date.now();
    let inWindow = 0;
    const { client: c } = await serve(() => {
      const now = Date.now();
      if (now - windowStart >= 1000) [windowStart, inWindow] = [now, 0];
      return ++inWindow > perWindow ? { status: 503, retryAfter: '1' } : { status: 200 };
    }, CAP);
    const all = await Promise.all(Array.from({ length: 3 * perWindow }, (_, i) => report(c, `m${i}`)));
    expect(all.map((ex) => ex.verdict)).toEqual(all.map(() => 'accepted'));
    expect(all.filter((ex) => ex.throttled?.givenUp !== undefined)).toEqual([]);
    expect(c.throttling().throttled).toBeGreaterThan(0);
  });
});
