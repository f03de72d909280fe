/**
 * ≥ 10 000 generated bad requests against the correct reference: never a 5xx, always the envelope,
 * and the server still answers afterwards. Requests are mutations of valid ones (seeded, so a
 * failure reproduces): wrong types, dropped fields, lengths past LIMITS, truncated or random bytes,
 * duplicate keys, deep nesting, wrong content types, bad path ids, bad credentials and signatures.
 */
import { seededRandom } from '../../src/gen/index.ts';
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import { LIMITS, LIMIT_NAMES } from '../../src/spec/index.ts';
import { BROWSER, DEVICE, authHeaders, send, sign, validRequests, type Res } from './helpers.ts';

const REQUESTS = 10_000;
const PARALLEL = 16;
const RAW_REQUESTS = 300;

const prng = seededRandom;

let ref: RunningReference;
beforeAll(async () => {
  ref = await startReference();
});
afterAll(async () => {
  await ref.close();
});

interface Req {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function paths(v: Json, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (v !== null && typeof v === 'object') {
    const entries = Array.isArray(v) ? v.map((x, i) => [i, x] as const) : Object.entries(v);
    for (const [k, x] of entries) {
      out.push([...at, k]);
      if (out.length < 200) paths(x as Json, [...at, k], out);
    }
  }
  return out;
}

function setAt(root: Json, at: (string | number)[], value: Json | undefined): Json {
  const copy = structuredClone(root);
  let v = copy as Record<string | number, Json>;
  for (const k of at.slice(0, -1)) v = v[k] as Record<string | number, Json>;
  const last = at[at.length - 1]!;
  if (value === undefined) {
    if (Array.isArray(v)) v.splice(last as number, 1);
    else delete v[last];
  } else v[last] = value;
  return copy;
}

function generator(seed: number) {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const int = (n: number): number => Math.floor(rnd() * n);
  const templates = validRequests(ref);
  const overLimit = (): Json => {
    const l = LIMITS[pick(LIMIT_NAMES)];
    // The largest limits (envelopes of 699051 characters) cost real time per request: keep them rare.
    const n = (l.max ?? 10) + 1;
    if (n > 10_000 && rnd() < 0.9) return 'A'.repeat(LIMITS.reasonLength.max! + 1);
    return l.unit === 'items' ? Array.from({ length: Math.min(n, 2100) }, () => 'x') : l.unit === 'chars' ? 'A'.repeat(n) : n;
  };
  const badValues: (() => Json)[] = [
    () => null,
    () => 1.5,
    () => -1,
    () => 2 ** 60,
    () => 1e308,
    () => '',
    () => 'not-a-uuid',
    () => 'a+b/c=',
    () => '\u0000\ud800',
    () => true,
    () => [],
    () => ({}),
    () => [[[[{}]]]],
    () => ({ __proto__: 1, constructor: 'x' }) as unknown as Json,
    overLimit,
  ];
  const randomBytes = (n: number): Uint8Array => Uint8Array.from({ length: n }, () => int(256));

  return (): Req => {
    const t = pick(templates);
    const body = t.body as Json;
    const headers: Record<string, string> = { 'content-type': 'application/json', ...authHeaders(ref, t.who) };
    let method = t.method;
    let path = t.path;
    let text: string | Uint8Array = JSON.stringify(body);
    const kind = int(14);
    switch (kind) {
      case 0:
      case 1:
      case 2: {
        const ps = paths(body);
        text = JSON.stringify(setAt(body, pick(ps), pick(badValues)()));
        break;
      }
      case 3:
        text = JSON.stringify(setAt(body, pick(paths(body)), undefined));
        break;
      case 4:
        text = text.slice(0, int(text.length));
        break;
      case 5:
        text = randomBytes(1 + int(300));
        break;
      case 6:
        text = text.replace('{', `{"${pick(Object.keys(body as object))}":1,`);
        break;
      case 7: {
        const d = 65 + int(20_000);
        text = `{"x":${'['.repeat(d)}${rnd() < 0.5 ? ']'.repeat(d) : ''}}`;
        break;
      }
      case 8:
        headers['content-type'] = pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', '', 'application/json5', 'json']);
        if (headers['content-type'] === '') delete headers['content-type'];
        break;
      case 9:
        path = path.replace(/\/(v1\/[a-z-]+(?:\/[a-z-]+)?\/)[^/]+/, (_m, p: string) => `/${p}${pick(['x', '%E0%A4%A', '..', '0'.repeat(37), encodeURIComponent('\u{1F600}'), 'ZZZZZZZZ-ZZZZ-4ZZZ-8ZZZ-ZZZZZZZZZZZZ', ''])}`);
        break;
      case 10:
        if (rnd() < 0.5) delete headers['authorization'];
        else headers['authorization'] = pick(['Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', `Bearer ${'x'.repeat(int(100))}`, 'bearer\ttoken']);
        break;
      case 11:
        method = pick(['GET', 'DELETE', 'PATCH', t.method === 'POST' ? 'PUT' : 'POST']);
        break;
      case 12:
        text = pick(['1', '"x"', 'true', 'null', '[]', '[{}]', '{}', '{"a":1}garbage', '\ufeff{}', '{"a":1e999}', '{"a":-0}', ' ']);
        break;
      case 13: {
        const bytes = Buffer.from(text);
        for (let i = 0; i < 1 + int(4); i++) bytes[int(bytes.length)] = int(256);
        text = bytes;
        break;
      }
    }
    if (t.who === DEVICE && t.name === 'commitOperations') {
      // Mostly a real signature over the template, sometimes garbage: both must end in a 4xx.
      headers['service-signature'] = rnd() < 0.7 ? sign(ref, body) : pick(['', '..', 'a.b.c', `${'A'.repeat(9000)}..x`, 'eyJhbGciOiJub25lIn0..']);
      if (headers['service-signature'] === '') delete headers['service-signature'];
    }
    return { method, path, headers, body: text };
  };
}

function isEnvelope(r: Res): boolean {
  const j = r.json as { ok?: unknown; meta?: { request_id?: unknown } } | undefined;
  return j !== undefined && typeof j.ok === 'boolean' && typeof j.meta?.request_id === 'string';
}

it(`answers ${REQUESTS} generated bad requests without a 5xx, always with the envelope`, async () => {
  const next = generator(20260301);
  const counts = new Map<number, number>();
  const problems: string[] = [];
  let issued = 0;
  const worker = async (): Promise<void> => {
    while (issued < REQUESTS) {
      issued++;
      const q = next();
      const r = await send(ref.url, q);
      counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
      if ((r.status >= 500 || !isEnvelope(r)) && problems.length < 5) problems.push(`${q.method} ${q.path} → ${r.status} ${r.text.slice(0, 120)}`);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const fourxx = [...counts].filter(([s]) => s >= 400 && s < 500).reduce((a, [, n]) => a + n, 0);
  expect(problems).toEqual([]);
  expect(total).toBe(REQUESTS);
  expect([...counts.keys()].every((s) => s < 500)).toBe(true);
  // They are bad requests: the great majority are rejected.
  expect(fourxx / total).toBeGreaterThan(0.85);
  const after = await send(ref.url, { method: 'PUT', path: '/v1/account/unlock', headers: { 'content-type': 'application/json', ...authHeaders(ref, BROWSER) }, body: '{"statements":[]}' });
  expect(after.status).toBe(200);
});

it(`answers ${RAW_REQUESTS} malformed HTTP messages with a 4xx and keeps serving`, async () => {
  const rnd = prng(7);
  const lines = [
    'GARBAGE\r\n\r\n',
    'POST /v1/account/passkeys HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
    'POST /v1/account/passkeys HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    `POST /v1/account/passkeys HTTP/1.1\r\nHost: x\r\nX: ${'a'.repeat(70_000)}\r\n\r\n`,
    'POST /v1/account/passkeys HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n',
    'POST\x00 / HTTP/1.1\r\n\r\n',
  ];
  let fourxx = 0;
  for (let i = 0; i < RAW_REQUESTS; i++) {
    const msg = lines[Math.floor(rnd() * lines.length)]!;
    const head = await new Promise<string>((resolve) => {
      const s = connect({ host: new URL(ref.url).hostname, port: Number(new URL(ref.url).port) }, () => s.end(msg));
      let got = '';
      s.on('data', (c: Buffer) => (got += c.toString('latin1')));
      s.on('close', () => resolve(got));
      s.on('error', () => resolve(got));
      s.setTimeout(5000, () => s.destroy());
    });
    if (/^HTTP\/1\.1 4\d\d/.test(head)) fourxx++;
  }
  expect(fourxx).toBe(RAW_REQUESTS);
  const after = await send(ref.url, { method: 'PUT', path: '/v1/account/unlock', headers: { 'content-type': 'application/json', ...authHeaders(ref, BROWSER) }, body: '{"statements":[]}' });
  expect(after.status).toBe(200);
});
