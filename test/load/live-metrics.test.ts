import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATENCY_BUCKETS_S, LiveRecorder, outcomeOf } from '../../src/load/metrics/live.ts';
import { LiveMetrics } from '../../src/load/metrics/metrics.ts';
import { MetricsListenError, parseMetricsListen, serveMetrics } from '../../src/load/metrics/metrics-server.ts';
import { AbandonedError, Sender } from '../../src/load/http1/sender.ts';

/** The value of the one sample named `name` with exactly these labels (in the exposition's order), or undefined. */
function sample(text: string, line: string): number | undefined {
  const hit = text.split('\n').find((l) => l.startsWith(`${line} `));
  return hit === undefined ? undefined : Number(hit.slice(line.length + 1));
}

let server: Server;
let url = '';
beforeAll(async () => {
  // /slow never answers (a timeout), /missing is a 404, anything else a 200.
  server = createServer((req, res) => {
    req.resume();
    if (req.url === '/slow') return;
    res.writeHead(req.url === '/missing' ? 404 : 200).end('x');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => {
  server.closeAllConnections();
  server.close(() => r());
}));

describe('live metrics', () => {
  it('classify each settled request by status class, transport error, timeout or abandonment', () => {
    expect([200, 204, 302, 404, 503, 101].map((status) => outcomeOf({ status, body: '' }))).toEqual(['2xx', '2xx', '3xx', '4xx', '5xx', '1xx']);
    expect(outcomeOf(new AbandonedError('timeout', 'timeout'))).toBe('timeout');
    expect(outcomeOf(new AbandonedError('abandoned-at-end', 'abandoned-at-end'))).toBe('abandoned');
    expect(outcomeOf(new Error('ECONNRESET'))).toBe('transport_error');
  });

  it('count real requests by operation and outcome, with shard and scenario labels, in the exposition format', async () => {
    const recorder = new LiveRecorder();
    const s = new Sender(url, 2, 300);
    s.measure(recorder);
    const send = (path: string, kind: string): Promise<unknown> => s.request({ kind, method: 'POST', path, headers: {}, body: 'b' }).catch((e: unknown) => e);
    await Promise.all([send('/a', 'commit'), send('/b', 'commit'), send('/missing', 'usage')]);
    await send('/slow', 'usage');
    await s.close();
    const live = new LiveMetrics({ scenario: 'mixed', shard: 3 });
    const generation = live.begin(50);
    live.update(generation, 0, recorder.snapshot());
    const registry = live.registry();
    const text = await registry.metrics();
    expect(registry.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const l = (op: string, outcome: string): string => `pouchproof_requests_total{scenario="mixed",shard="3",operation="${op}",outcome="${outcome}"}`;
    expect([sample(text, l('commit', '2xx')), sample(text, l('usage', '4xx')), sample(text, l('usage', 'timeout'))]).toEqual([2, 1, 1]);
    expect(sample(text, 'pouchproof_requests_sent_total{scenario="mixed",shard="3",operation="usage"}')).toBe(2);
    // Cumulative buckets end at +Inf with the count; the timeout (300 ms) is above the 0.25 s bound.
    const bucket = (le: string): number | undefined => sample(text, `pouchproof_request_duration_seconds_bucket{scenario="mixed",shard="3",operation="usage",le="${le}"}`);
    expect(bucket('+Inf')).toBe(2);
    expect(bucket('0.25')).toBe(1);
    expect(LATENCY_BUCKETS_S).toContain(0.25);
    expect(sample(text, 'pouchproof_request_duration_seconds_count{scenario="mixed",shard="3",operation="usage"}')).toBe(2);
    expect(sample(text, 'pouchproof_offered_rate{scenario="mixed",shard="3"}')).toBe(50);
    expect(sample(text, 'pouchproof_requests_in_flight{scenario="mixed",shard="3"}')).toBe(0);
    // The three answered requests' phases; two connections were opened for them (the timeout has none).
    const phase = (p: string): number | undefined => sample(text, `pouchproof_request_phase_seconds_count{scenario="mixed",shard="3",phase="${p}"}`);
    expect([phase('blocked'), phase('connect'), phase('tls'), phase('wait'), phase('receive')]).toEqual([3, 2, 0, 3, 3]);
  });

  it('keep the counters of jobs that ended (earlier sweep points) in the sums, and only the running ones\' gauges', async () => {
    const live = new LiveMetrics({ scenario: 's', shard: 0 });
    const snap = (n: number, inFlight: number) => ({ operations: { k: { sent: n, outcomes: [0, n, 0, 0, 0, 0, 0, 0], buckets: [n, ...new Array<number>(LATENCY_BUCKETS_S.length).fill(0)], sumSeconds: 0 } }, phases: [], inFlight, achievedRate: 1, sentRate: 1, busy: 0.5 });
    live.update(live.begin(10), 0, snap(5, 0));
    const second = live.begin(20);
    live.update(second, 0, snap(7, 2));
    live.update(second, 1, snap(1, 1));
    const text = await live.registry().metrics();
    expect(sample(text, 'pouchproof_requests_total{scenario="s",shard="0",operation="k",outcome="2xx"}')).toBe(13);
    expect(sample(text, 'pouchproof_requests_in_flight{scenario="s",shard="0"}')).toBe(3);
    expect(sample(text, 'pouchproof_generator_busy_ratio{scenario="s",shard="0",worker="1"}')).toBe(0.5);
    expect(sample(text, 'pouchproof_offered_rate{scenario="s",shard="0"}')).toBe(20);
  });

  it('--metrics-listen takes HOST:PORT or :PORT, and says what is wrong in one line', async () => {
    expect(parseMetricsListen('127.0.0.1:9464')).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(parseMetricsListen(':9464')).toEqual({ host: '0.0.0.0', port: 9464 });
    expect(parseMetricsListen('[::1]:80')).toEqual({ host: '::1', port: 80 });
    for (const bad of ['9464', 'host', '127.0.0.1:99999', 'a:b', '']) expect(() => parseMetricsListen(bad), bad).toThrow(MetricsListenError);
    const live = new LiveMetrics({ scenario: 's', shard: 0 });
    const first = await serveMetrics({ host: '127.0.0.1', port: 0 }, live);
    try {
      expect((await fetch(first.url)).status).toBe(200);
      expect((await fetch(first.url.replace('/metrics', '/other'))).status).toBe(404);
      const port = Number(new URL(first.url).port);
      await expect(serveMetrics({ host: '127.0.0.1', port }, live)).rejects.toThrow(/--metrics-listen 127\.0\.0\.1:\d+: cannot listen \(the port is in use\)/);
    } finally {
      await first.close();
    }
  });

  it('after the run, stay up until a scrape has read the final figures (and no longer), or the linger is over', async () => {
    const live = new LiveMetrics({ scenario: 's', shard: 0 });
    const srv = await serveMetrics({ host: '127.0.0.1', port: 0 }, live);
    live.update(live.begin(undefined), 0, { operations: {}, phases: [], inFlight: 0, achievedRate: 0, sentRate: 0, busy: 0 });
    expect(live.read).toBe(false);
    let closed = false;
    const closing = srv.close(60_000).then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(false);
    // The scrape that reads the final snapshot lets it close.
    expect((await fetch(srv.url)).status).toBe(200);
    await closing;
    expect(live.read).toBe(true);
    await expect(fetch(srv.url)).rejects.toThrow();
  });
});
