/**
 * Runs one job per worker thread (or in-process with zero workers) and merges their results:
 * histograms through HdrHistogram's encoding, counters and per-second buckets by addition.
 */
import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { newHistogram, mergeEncoded, summarize, encodeHistogram, type LatencySummary } from './histogram.ts';
import { runJob, type JobOutput, type JobSpec } from './job.ts';
import type { CheckResult } from './scenario.ts';
import { mergeTimelines, type SecondBucket } from './timeline.ts';

const BOOT = new URL('./worker-boot.mjs', import.meta.url);
const ENTRY = new URL('./worker.ts', import.meta.url).href;

/** A barrier: resolves every waiter with one start time once `n` have arrived. */
function startBarrier(n: number, leadMs: number): () => Promise<number> {
  let arrived = 0;
  let release!: (t: number) => void;
  const gate = new Promise<number>((r) => (release = r));
  return () => {
    if (++arrived === n) release(clock() + leadMs);
    return gate;
  };
}

function inWorker(job: JobSpec, ready: () => Promise<number>): Promise<JobOutput> {
  return new Promise((resolve, reject) => {
    const w = new Worker(BOOT, { workerData: { entry: ENTRY, job } });
    let settled = false;
    w.on('message', (m: { ready?: boolean; output?: JobOutput; error?: string }) => {
      if (m.ready) {
        void ready().then((startAt) => w.postMessage({ startAt }));
        return;
      }
      settled = true;
      if (m.output) resolve(m.output);
      else reject(new Error(m.error ?? 'worker failed'));
      void w.terminate();
    });
    w.once('error', (e) => {
      if (!settled) reject(e);
    });
    w.once('exit', (code) => {
      if (!settled) reject(new Error(`load worker exited with code ${code}`));
    });
  });
}

export interface MergedResult {
  readonly histogram: string;
  readonly latency: LatencySummary;
  readonly sent: number;
  readonly completed: number;
  readonly ok: number;
  readonly notOk: number;
  readonly errors: number;
  readonly dropped: number;
  readonly unsent: number;
  readonly units: number;
  readonly reasons: Record<string, number>;
  readonly kinds: Record<string, { sent: number; ok: number; units: number }>;
  readonly timeline: SecondBucket[];
  readonly wallMs: number;
  /** Per worker: share of wall time spent building requests and judging responses. */
  readonly generatorBusy: number[];
  readonly loopUtilization: number[];
  readonly bytesSent: number;
  readonly checks: CheckResult[];
  readonly stats: Record<string, number>;
}

/** Epoch-ms clock shared by every thread of the process. */
export const clock = (): number => performance.timeOrigin + performance.now();

export async function runJobs(jobs: readonly JobSpec[], threads: boolean): Promise<MergedResult> {
  const ready = startBarrier(jobs.length, threads ? 50 : 5);
  const outputs = await Promise.all(jobs.map((j) => (threads ? inWorker(j, ready) : runJob(j, ready))));
  return mergeOutputs(outputs);
}

export function mergeOutputs(outputs: readonly JobOutput[]): MergedResult {
  const h = newHistogram();
  const reasons: Record<string, number> = {};
  const kinds: Record<string, { sent: number; ok: number; units: number }> = {};
  const stats: Record<string, number> = {};
  const sum = (f: (e: JobOutput['engine']) => number): number => outputs.reduce((a, o) => a + f(o.engine), 0);
  for (const o of outputs) {
    mergeEncoded(h, o.engine.histogram);
    for (const [k, v] of Object.entries(o.engine.reasons)) reasons[k] = (reasons[k] ?? 0) + v;
    for (const [k, v] of Object.entries(o.engine.kinds)) {
      const t = (kinds[k] ??= { sent: 0, ok: 0, units: 0 });
      t.sent += v.sent;
      t.ok += v.ok;
      t.units += v.units;
    }
    for (const [k, v] of Object.entries(o.stats)) stats[k] = (stats[k] ?? 0) + v;
  }
  const latency = summarize(h);
  const histogram = encodeHistogram(h);
  h.destroy();
  return {
    histogram,
    latency,
    sent: sum((e) => e.sent),
    completed: sum((e) => e.completed),
    ok: sum((e) => e.ok),
    notOk: sum((e) => e.notOk),
    errors: sum((e) => e.errors),
    dropped: sum((e) => e.dropped),
    unsent: sum((e) => e.unsent),
    units: sum((e) => e.units),
    reasons,
    kinds,
    timeline: mergeTimelines(outputs.map((o) => o.engine.timeline)),
    wallMs: Math.max(0, ...outputs.map((o) => o.engine.wallMs)),
    generatorBusy: outputs.map((o) => (o.engine.wallMs > 0 ? o.engine.generatorMs / o.engine.wallMs : 0)),
    loopUtilization: outputs.map((o) => o.engine.loopUtilization),
    bytesSent: sum((e) => e.bytesSent),
    checks: outputs.flatMap((o) => o.checks),
    stats,
  };
}
