/**
 * The nemesis (src/target/nemesis/): its SPEC grammar and one-line refusals, each fault on a real
 * loopback connection to a server that counts what reached it, the seeded draws, and the client's
 * retries after no answer (the same bytes, signature included, until an answer or the policy's end).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TargetClient } from '../../src/target/client.ts';
import { Nemesis, NemesisSpecError, parseNemesis, partitionEnd, upstreamOf } from '../../src/target/nemesis/index.ts';
import { draw } from '../../src/target/nemesis/draw.ts';
import { parseProfile, ProfileError } from '../../src/target/profile.ts';

describe('the nemesis SPEC', () => {
  it('reads rates, delays, partitions and the retry policy', () => {
    const p = parseNemesis('lose-response=2%,reset-mid-request=0.01,duplicate=1%,delay=10ms..50ms@25%,partition=5s@30s,partition=1s@2m/10s,retries=5,backoff=20ms');
    expect(p.loseResponse).toBeCloseTo(0.02);
    expect(p.resetMidRequest).toBeCloseTo(0.01);
    expect(p.duplicate).toBeCloseTo(0.01);
    expect(p.delay).toEqual({ minMs: 10, maxMs: 50, rate: 0.25 });
    expect(p.partitions).toEqual([{ lengthMs: 5000, startMs: 30_000 }, { lengthMs: 1000, startMs: 120_000, everyMs: 10_000 }]);
    expect(p.retry).toEqual({ count: 5, backoffMs: 20 });
    expect(parseNemesis('delay=20ms').delay).toEqual({ minMs: 20, maxMs: 20, rate: 1 });
    expect(parseNemesis('duplicate=1%').retry).toEqual({ count: 3, backoffMs: 50 });
  });

  it.each([
    ['lose-respons=2%', /unknown item "lose-respons"/],
    ['lose-response=200%', /expected a rate/],
    ['lose-response', /expected NAME=VALUE/],
    ['lose-response=2%,,duplicate=1%', /empty item/],
    ['lose-response=60%,reset-mid-request=50%', /more than 100%/],
    ['delay=fast', /expected a duration/],
    ['delay=50ms..10ms', /upper bound is below/],
    ['partition=5s', /LENGTH@START/],
    ['partition=5s@0s/2s', /EVERY > LENGTH/],
    ['retries=many', /whole number/],
    ['duplicate=1%,duplicate=2%', /given twice/],
  ])('refuses %s in one line', (spec, message) => {
    let err: unknown;
    try {
      parseNemesis(spec);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NemesisSpecError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toMatch(/\n/);
  });

  it('is refused in a profile with the profile field named, and refused beside a proxy', () => {
    expect(() => parseProfile({ baseUrl: 'http://127.0.0.1:1', nemesis: 'lose-respons=1%' })).toThrow(ProfileError);
    expect(() => parseProfile({ baseUrl: 'http://127.0.0.1:1', nemesis: 'lose-respons=1%' })).toThrow(/nemesis/);
    expect(() => parseProfile({ baseUrl: 'http://staging.example.test', proxy: 'http://127.0.0.1:2', nemesis: 'duplicate=1%' })).toThrow(/proxy/);
    expect(parseProfile({ baseUrl: 'http://127.0.0.1:1', nemesis: 'duplicate=1%' }).nemesis?.duplicate).toBeCloseTo(0.01);
  });

  it('places partition windows, once or repeating', () => {
    const p = parseNemesis('partition=1s@2s,partition=100ms@10s/1s');
    expect(partitionEnd(p, 1999)).toBeUndefined();
    expect(partitionEnd(p, 2000)).toBe(3000);
    expect(partitionEnd(p, 3000)).toBeUndefined();
    expect(partitionEnd(p, 12_050)).toBe(12_100);
    expect(partitionEnd(p, 12_150)).toBeUndefined();
  });

  it('draws the same for the same seed and key, and apart for another seed', () => {
    expect(draw(7, '12', 'fault')).toBe(draw(7, '12', 'fault'));
    const a = Array.from({ length: 200 }, (_, i) => draw(7, String(i), 'fault'));
    const b = Array.from({ length: 200 }, (_, i) => draw(8, String(i), 'fault'));
    expect(a).not.toEqual(b);
    // Spread over [0, 1): a rate of 20% hits about a fifth.
    const hits = a.filter((x) => x < 0.2).length;
    expect(hits).toBeGreaterThan(20);
    expect(hits).toBeLessThan(60);
    expect(a.every((x) => x >= 0 && x < 1)).toBe(true);
  });
});

/** A server that records each request it read in full (a cut one never completes) and the headers it saw. */
let server: Server;
let base = '';
const completed: { url: string; body: string; headers: IncomingMessage['headers'] }[] = [];
let aborted = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('aborted', () => aborted++);
    req.on('end', () => {
      completed.push({ url: req.url ?? '', body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, data: { stored: 0 }, meta: { request_id: 'r' } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});
beforeEach(() => {
  completed.length = 0;
  aborted = 0;
});

const SOURCE = 'a'.repeat(32);
const body = { rows: [{ input: 1, output: 2, cache_read: 3, cache_write: 4, day: '2026-01-01', assistant: 'a', model: 'm' }] };
const report = (client: TargetClient) => client.call({ endpoint: 'reportUsage', params: { sourceId: SOURCE }, body });
const clientWith = (spec: string, seed = 1) => new TargetClient(parseProfile({ baseUrl: base, connections: 2, nemesis: spec }), { nemesisSeed: seed });

describe('the nemesis on the wire', () => {
  it('lose-response: the request reaches the server in full, the answer never comes back, and the same bytes go again until the policy ends', async () => {
    const client = clientWith('lose-response=100%,retries=2,backoff=1ms');
    try {
      const ex = await report(client);
      expect(completed).toHaveLength(3);
      expect(new Set(completed.map((c) => c.body)).size).toBe(1);
      expect(ex.verdict).toBe('transport-error');
      // The nemesis dropped it: pouchproof's own doing, which judges nothing of the target.
      expect(ex.failure).toBe('aborted');
      expect(ex.nemesis?.attempts).toBe(3);
      expect(ex.nemesis?.faults.map((f) => f.fault)).toEqual(['lose-response', 'lose-response', 'lose-response']);
      expect(client.nemesisSummary()).toMatchObject({ requests: 3, retries: 2, unanswered: 1, injected: { 'lose-response': 3 } });
    } finally {
      await client.close();
    }
  });

  it('reset-mid-request: the server never reads a whole request', async () => {
    const client = clientWith('reset-mid-request=100%,retries=1,backoff=1ms');
    try {
      const ex = await report(client);
      expect(completed).toHaveLength(0);
      expect(ex.nemesis?.faults.map((f) => f.fault)).toEqual(['reset-mid-request', 'reset-mid-request']);
      expect(ex.nemesis?.faults[0]?.detail).toMatch(/cut after \d+ of \d+ bytes/);
    } finally {
      await client.close();
    }
  });

  it('duplicate: two copies reach the server on two connections, one answer comes back, and the tag never reaches the target', async () => {
    const client = clientWith('duplicate=100%');
    try {
      const ex = await report(client);
      expect(ex.verdict).toBe('accepted');
      expect(completed).toHaveLength(2);
      expect(completed[0]!.body).toBe(completed[1]!.body);
      expect(completed.every((c) => c.headers['x-pouchproof-nemesis'] === undefined)).toBe(true);
      expect(ex.nemesis).toEqual({ attempts: 1, faults: [expect.objectContaining({ attempt: 1, fault: 'duplicate' })] });
    } finally {
      await client.close();
    }
  });

  it('a retried commit carries the same bytes and the same Service-Signature', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    const profile = parseProfile({
      baseUrl: base,
      nemesis: 'lose-response=100%,retries=1,backoff=1ms',
      accounts: { primary: { device: { headers: { authorization: 'Bearer x' }, deviceId: '3f0e8a52-6c1d-4b7e-9a2f-0c5d8e7b6a14', privateJwk: jwk as Record<string, unknown> } } },
    });
    const client = new TargetClient(profile, { nemesisSeed: 1 });
    try {
      const uuid = '3f0e8a52-6c1d-4b7e-9a2f-0c5d8e7b6a15';
      const op = { type: 'create', artifact_id: uuid, revision_id: uuid, base_revision_id: null, key_gen: 1, envelope: '', signature: 's', signer_member_id: uuid, blob_ids: [] };
      await client.call({ endpoint: 'commitOperations', params: { pouchId: uuid }, body: { operation_id: uuid, epoch: uuid, ops: [op] } });
      expect(completed).toHaveLength(2);
      expect(completed[0]!.body).toBe(completed[1]!.body);
      expect(completed[0]!.headers['service-signature']).toBeDefined();
      expect(completed[0]!.headers['service-signature']).toBe(completed[1]!.headers['service-signature']);
    } finally {
      await client.close();
    }
  });

  it('injects the same faults into the same exchanges for the same seed', async () => {
    const faultsOf = async (seed: number) => {
      const client = clientWith('lose-response=30%,duplicate=30%,retries=4,backoff=1ms', seed);
      try {
        const out: string[] = [];
        for (let i = 0; i < 12; i++) out.push(JSON.stringify((await report(client)).nemesis ?? null));
        return out;
      } finally {
        await client.close();
      }
    };
    const first = await faultsOf(5);
    expect(await faultsOf(5)).toEqual(first);
    expect(first.some((x) => x !== 'null')).toBe(true);
  });

  it('partition: a new connection is refused inside the window', async () => {
    const n = new Nemesis(parseNemesis('partition=10s@0s'), 1, upstreamOf(parseProfile({ baseUrl: base })));
    try {
      const port = await n.ready;
      const outcome = await new Promise<string>((resolve) => {
        const s = connect(port, '127.0.0.1', () => s.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n'));
        s.on('data', () => resolve('answered'));
        s.on('error', () => resolve('refused'));
        s.on('close', () => resolve('refused'));
      });
      expect(outcome).toBe('refused');
      expect(n.stats().counts.partition).toBe(1);
      expect(completed).toHaveLength(0);
    } finally {
      await n.close();
    }
  });

  it('a request named by its caller meets the same faults whatever order the requests go in', async () => {
    const spec = 'lose-response=30%,reset-mid-request=20%,retries=2,backoff=1ms';
    const tags = Array.from({ length: 24 }, (_, i) => `usage.idempotent/r${i}/1`);
    const faultsBy = async (order: readonly string[]) => {
      const client = clientWith(spec, 5);
      try {
        const met = new Map<string, string>();
        for (const tag of order) {
          const ex = await client.call({ endpoint: 'reportUsage', params: { sourceId: SOURCE }, body, nemesisTag: tag });
          met.set(tag, (ex.nemesis?.faults ?? []).map((f) => `${f.attempt}:${f.fault}`).join(' '));
        }
        return met;
      } finally {
        await client.close();
      }
    };
    const forward = await faultsBy(tags);
    const backward = await faultsBy([...tags].reverse());
    // Numbered in the order sent, the two orders would put the faults on other requests.
    expect(Object.fromEntries(backward)).toEqual(Object.fromEntries(forward));
    const hit = [...forward.values()].filter((f) => f !== '').length;
    expect(hit).toBeGreaterThan(0);
    expect(hit).toBeLessThan(tags.length);
  });

  it('without a nemesis, the client sends once and tags nothing', async () => {
    const client = new TargetClient(parseProfile({ baseUrl: base }));
    try {
      const ex = await report(client);
      expect(ex.verdict).toBe('accepted');
      expect(ex.nemesis).toBeUndefined();
      expect(client.nemesisSummary()).toBeUndefined();
      expect(completed).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});

describe('the nemesis in the reports', () => {
  it('names each fault with the copy it hit, per exchange, and the run\'s injections and retries', async () => {
    const { findingDetail } = await import('../../src/report/console.ts');
    const { nemesisLine } = await import('../../src/report/nemesis.ts');
    const { recordExchange } = await import('../../src/check/run/exchange-record.ts');
    const client = clientWith('lose-response=100%,retries=1,backoff=1ms');
    try {
      const recorded = recordExchange(await report(client), []);
      expect(recorded.nemesis?.faults.map((f) => [f.attempt, f.fault])).toEqual([[1, 'lose-response'], [2, 'lose-response']]);
      const lines = findingDetail({ message: 'm', exchanges: [recorded] });
      expect(lines.join('\n')).toMatch(new RegExp(`nemesis on exchange #${recorded.id}: copy 1: lose-response .*copy 2: lose-response .*2 copies sent`));
      const summary = client.nemesisSummary()!;
      expect(nemesisLine({ nemesis: summary })).toMatch(/^lose-response=100%,retries=1,backoff=1ms \(seed 1\): lose-response 2; 1 retry after no answer \(50\.0% of the 2 requests\); 1 call still unanswered/);
    } finally {
      await client.close();
    }
  });
});
