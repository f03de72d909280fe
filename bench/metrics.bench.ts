/**
 * What `--metrics-listen` costs the generator (issue 33.2: at most 5 % of its signed-commit rate):
 * the engine sends unique live-signed 1-op commits (commit-throughput, nothing pre-built) to the
 * reference in a child process, closed model, in interleaved rounds without and with live metrics:
 * the per-request observer (live.ts), its snapshots every LIVE_EVERY_MS, and the endpoint served and
 * scraped once a second, all in the generator's own thread (the worst case: with --workers the
 * endpoint and the scrapes run in the main thread, apart from the generators). Compared by CPU time
 * per request of this process (the reference runs in its own), the figure a shared machine distorts
 * least, and by rate.
 */
import { COMMIT_PARAMS, commitSource } from '../scenarios/commit-throughput.ts';
import { median as medianOf } from '../src/mutants/mutants.ts';
import { runEngine } from '../src/load/engine/engine.ts';
import { LIVE_EVERY_MS, LiveRecorder } from '../src/load/metrics/live.ts';
import { LiveMetrics } from '../src/load/metrics/metrics.ts';
import { serveMetrics } from '../src/load/metrics/metrics-server.ts';
import type { Profile } from '../src/target/profile.ts';
import { performance } from 'node:perf_hooks';
import { Flight, Sender } from '../src/load/http1/sender.ts';
import { startServer } from './load.bench.ts';

const CONNECTIONS = 16;
const ROUND_MS = 3000;
const ROUNDS = 5;
const SCRAPE_MS = 1000;
/** The most the metrics may cost: a share of the signed-commit rate per core. */
const MAX_COST = 0.05;

const defaults = Object.fromEntries(COMMIT_PARAMS.map((p) => [p.name, p.default]));
const median = (xs: readonly number[]): number => medianOf(xs) ?? 0;

interface Round {
  readonly rps: number;
  readonly cpuUs: number;
  readonly scrapes: number;
}

async function round(profile: Profile, seed: number, withMetrics: boolean): Promise<Round> {
  const source = commitSource({ workerIndex: 0, workers: 1, seed, params: { ...defaults, prebuild: 0 }, profile, connections: CONNECTIONS });
  const live = withMetrics ? new LiveMetrics({ scenario: 'commit-throughput', shard: 0 }) : undefined;
  const recorder = withMetrics ? new LiveRecorder() : undefined;
  const server = live ? await serveMetrics({ host: '127.0.0.1', port: 0 }, live) : undefined;
  const generation = live?.begin(undefined) ?? 0;
  let scrapes = 0;
  const timers = live && server
    ? [
        setInterval(() => live.update(generation, 0, recorder!.snapshot()), LIVE_EVERY_MS),
        setInterval(() => void fetch(server.url).then((r) => r.text()).then(() => scrapes++), SCRAPE_MS),
      ]
    : [];
  const c0 = process.cpuUsage();
  try {
    const e = await runEngine({
      baseUrl: profile.baseUrl, source, model: { kind: 'closed' }, connections: CONNECTIONS, durationMs: ROUND_MS, maxRequests: 100_000_000, timeoutMs: 10_000, warmupMs: 300,
      ...(recorder ? { observer: recorder } : {}),
    });
    const d = process.cpuUsage(c0);
    return { rps: (e.completed * 1000) / e.wallMs, cpuUs: (d.user + d.system) / Math.max(1, e.completed), scrapes };
  } finally {
    for (const t of timers) clearInterval(t);
    await server?.close();
  }
}

/**
 * The same cost without the machine's noise: the observer's work per request (sent, settled with its
 * phases), and a snapshot and a scrape, each in a tight loop (µs, medians of five loops).
 */
async function tightLoop(): Promise<{ perRequestUs: number; snapshotUs: number; scrapeUs: number }> {
  const sender = new Sender('http://127.0.0.1:9', 1, 1000);
  const req = { kind: 'commit', method: 'POST' as const, path: '/x', headers: {}, body: '' };
  const f = new Flight(sender, req, () => undefined);
  const t = performance.timeOrigin + performance.now();
  Object.assign(f, { intended: t, assigned: t + 0.1, written: t + 0.15, firstByte: t + 1.2, ended: t + 1.25 });
  const recorder = new LiveRecorder();
  const live = new LiveMetrics({ scenario: 'commit-throughput', shard: 0 });
  const generation = live.begin(undefined);
  const res = { status: 200, body: '' };
  const loop = (n: number, f1: () => unknown): number => {
    const runs: number[] = [];
    for (let k = 0; k < 5; k++) {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) f1();
      runs.push(((performance.now() - t0) * 1000) / n);
    }
    return median(runs);
  };
  const perRequestUs = loop(200_000, () => {
    recorder.sent(req);
    recorder.settled(f, res, 0);
  });
  const snapshotUs = loop(2000, () => live.update(generation, 0, recorder.snapshot()));
  const scrapeRuns: number[] = [];
  for (let k = 0; k < 50; k++) {
    const t0 = performance.now();
    await live.registry().metrics();
    scrapeRuns.push((performance.now() - t0) * 1000);
  }
  await sender.close();
  return { perRequestUs, snapshotUs, scrapeUs: median(scrapeRuns) };
}

export async function run(): Promise<void> {
  const { child, profile } = await startServer();
  try {
    await round(profile, 1, false); // warms both sides' hot paths
    const without: Round[] = [];
    const withM: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      // Alternating which goes first, so a trend in the machine's load hits both alike.
      const pair = r % 2 === 0 ? [false, true] : [true, false];
      for (const m of pair) (m ? withM : without).push(await round(profile, 100 + r * 2 + (m ? 1 : 0), m));
    }
    const cpu = (xs: readonly Round[]): number => median(xs.map((x) => x.cpuUs));
    const rate = (xs: readonly Round[]): number => median(xs.map((x) => x.rps));
    const perCore = (xs: readonly Round[]): number => 1e6 / cpu(xs);
    const cost = 1 - perCore(withM) / perCore(without);
    console.log(`live metrics cost (reference in a child process; ${CONNECTIONS} connections, closed model, live-signed 1-op commits; ${ROUNDS} interleaved rounds of ${ROUND_MS / 1000} s, medians; endpoint scraped every ${SCRAPE_MS / 1000} s in the generator's thread)`);
    console.log(`  without metrics: ${rate(without).toFixed(0).padStart(6)} req/s  ${cpu(without).toFixed(1)} µs CPU/request → ${perCore(without).toFixed(0)} signed commits/s per core  (rounds ${without.map((x) => x.rps.toFixed(0)).join(', ')})`);
    console.log(`  with metrics:    ${rate(withM).toFixed(0).padStart(6)} req/s  ${cpu(withM).toFixed(1)} µs CPU/request → ${perCore(withM).toFixed(0)} signed commits/s per core  (rounds ${withM.map((x) => x.rps.toFixed(0)).join(', ')}; ${withM.map((x) => x.scrapes).join(', ')} scrapes)`);
    console.log(`  cost: ${(cost * 100).toFixed(1)} % of the signed-commit rate per core (target ≤ ${MAX_COST * 100} %: ${cost <= MAX_COST ? 'met' : 'NOT met'}); by rate ${((1 - rate(withM) / rate(without)) * 100).toFixed(1)} %`);
    // On a loaded machine the side-by-side difference is within the rounds' noise: the tight loops say what it is made of.
    const t = await tightLoop();
    const perSecondUs = (1000 / LIVE_EVERY_MS) * t.snapshotUs + (1000 / SCRAPE_MS) * t.scrapeUs;
    const rateNow = perCore(without);
    const share = (t.perRequestUs * rateNow + perSecondUs) / 1e6;
    console.log(
      `  in tight loops: ${t.perRequestUs.toFixed(2)} µs per request (counting, latency and phase buckets), ${t.snapshotUs.toFixed(0)} µs per snapshot (${1000 / LIVE_EVERY_MS}/s), ${t.scrapeUs.toFixed(0)} µs per scrape: ` +
        `${(share * 100).toFixed(2)} % of a core at ${rateNow.toFixed(0)} signed commits/s (target ≤ ${MAX_COST * 100} %: ${share <= MAX_COST ? 'met' : 'NOT met'})`,
    );
  } finally {
    child.stdin?.end();
    await new Promise((r) => child.once('exit', r));
  }
}
