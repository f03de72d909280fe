/**
 * The load engine's sender under the nemesis (docs/nemesis.md): its connections go through the
 * nemesis, a request with no answer is sent again (the same bytes, tagged as a retry, the tag
 * stripped before the target), and one still unanswered once the policy is spent settles as an error,
 * never dropped. Without the nemesis nothing is retried.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Sender } from '../../src/load/http1/sender.ts';
import type { LoadRequest, LoadResponse } from '../../src/load/scenario.ts';
import { Nemesis, parseNemesis, upstreamOf } from '../../src/target/nemesis/index.ts';

let server: Server;
let base = '';
const seen: { body: string; tagged: boolean }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ body: Buffer.concat(chunks).toString('utf8'), tagged: req.headers['x-pouchproof-nemesis'] !== undefined });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true,"data":{"stored":0},"meta":{"request_id":"r"}}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});
beforeEach(() => void (seen.length = 0));

const req: LoadRequest = { method: 'PUT', path: `/v1/usage/sources/${'a'.repeat(32)}`, headers: { 'content-type': 'application/json' }, body: '{"rows":[]}', kind: 'usage' };

async function through(spec: string, count: number): Promise<{ results: (LoadResponse | Error)[]; nemesis: Nemesis }> {
  const plan = parseNemesis(spec);
  const nemesis = new Nemesis(plan, 1, upstreamOf({ baseUrl: base, tls: undefined }));
  const sender = new Sender(base, 2, 5000, undefined, { nemesis: plan, nemesisPort: await nemesis.ready });
  try {
    const results = await Promise.all(Array.from({ length: count }, () => sender.request(req).catch((e: Error) => e)));
    return { results, nemesis };
  } finally {
    await sender.close();
    await nemesis.close();
  }
}

describe('the load sender under the nemesis', () => {
  it('sends a request with no answer again until the policy ends, then settles it as an error', async () => {
    const { results, nemesis } = await through('lose-response=100%,retries=2,backoff=1ms', 1);
    expect(results[0]).toBeInstanceOf(Error);
    expect(seen).toHaveLength(3);
    expect(seen.map((s) => s.body)).toEqual([req.body, req.body, req.body]);
    expect(seen.some((s) => s.tagged)).toBe(false);
    expect(nemesis.stats()).toMatchObject({ requests: 3, retries: 2, counts: { 'lose-response': 3 } });
  });

  it('answers every request when the retries outlast the faults, and counts the retries', async () => {
    const { results, nemesis } = await through('lose-response=30%,retries=10,backoff=1ms', 20);
    expect(results.every((r) => !(r instanceof Error) && r.status === 200)).toBe(true);
    const { requests, retries, counts } = nemesis.stats();
    expect(retries).toBeGreaterThan(0);
    expect(retries).toBe(counts['lose-response']);
    expect(requests).toBe(20 + retries);
    expect(seen.length).toBe(requests);
  });
});
