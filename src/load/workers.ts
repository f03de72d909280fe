/**
 * Runs one job per worker thread (or in-process with zero workers) and merges their results:
 * histograms through HdrHistogram's encoding, counters and per-second buckets by addition.
 */
import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import type { AbortSample } from './engine/abort.ts';
import type { AbortedBy } from './engine/engine-options.ts';
import type { LatencySummary } from './stats/histogram.ts';
import { runJob, type JobOutput, type JobSinks, type JobSpec } from './job.ts';
import { ScenarioSourceError } from './define.ts';
import type { LiveSnapshot } from './metrics/live.ts';
import { siblingModule } from './module-url.ts';
import type { CheckResult } from './scenario.ts';
import { addCounts, addTallies, errorHistograms, mergeHistograms, type KindTally, type Tally } from './stats/tally.ts';
import { mergeTimelines, type SecondBucket } from './stats/timeline.ts';
import { mergePhases, type PhaseHistograms } from './stats/phases.ts';

const BOOT = new URL('./worker-boot.mjs', import.meta.url);
const ENTRY = siblingModule(import.meta.url, 'worker').href;

/** A barrier: resolves every waiter with one start time once `n` have arrived. */
function startBarrier(n: number, leadMs: number, notBefore = 0): { wait: () => Promise<number>; gate: Promise<number> } {
  let arrived = 0;
  let release!: (t: number) => void;
  const gate = new Promise<number>((r) => (release = r));
  const wait = (): Promise<number> => {
    if (++arrived === n) release(Math.max(clock() + leadMs, notBefore));
    return gate;
  };
  return { wait, gate };
}

/** A job's live snapshot (see JobSpec.live), with its index among the run's jobs. */
export type OnLive = (job: number, s: LiveSnapshot) => void;

function inWorker(job: JobSpec, ready: () => Promise<number>, sinks: JobSinks): Promise<JobOutput> {
  return new Promise((resolve, reject) => {
    const w = new Worker(BOOT, { workerData: { entry: ENTRY, job } });
    let settled = false;
    w.on('message', (m: { ready?: boolean; output?: JobOutput; error?: string; scenario?: boolean; live?: LiveSnapshot; abort?: AbortSample }) => {
      if (m.live) return sinks.live?.(m.live);
      if (m.abort) return sinks.abort?.(m.abort);
      if (m.ready) {
        void ready().then((startAt) => w.postMessage({ startAt }));
        return;
      }
      settled = true;
      if (m.output) resolve(m.output);
      else reject(m.scenario ? new ScenarioSourceError(m.error) : new Error(m.error ?? 'worker failed'));
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

export interface MergedResult extends Tally {
  readonly histogram: string;
  readonly latency: LatencySummary;
  /** Failed requests alone (also in `histogram`). */
  readonly errorHistogram: string;
  readonly errorLatency: LatencySummary;
  readonly reasons: Record<string, number>;
  readonly kinds: Record<string, KindTally>;
  readonly timeline: SecondBucket[];
  readonly wallMs: number;
  /** Per worker: share of wall time spent building requests and judging responses. */
  readonly generatorBusy: number[];
  /** Per worker: ms the source spent building requests ahead, before the measured window. */
  readonly prepareMs: number[];
  readonly loopUtilization: number[];
  readonly checks: CheckResult[];
  readonly stats: Record<string, number>;
  /** Epoch ms the workers started measuring at. */
  readonly startMs?: number;
  /** The abort threshold the run's judge found broken on the merged samples (abort.ts), which stopped every worker. */
  readonly aborted?: AbortedBy;
  readonly phases: PhaseHistograms;
}

/** Epoch-ms clock shared by every thread of the process. */
export const clock = (): number => performance.timeOrigin + performance.now();

/** A job's abort sample, with its index among the run's jobs (the judge keeps the latest of each). */
export type OnAbortSample = (job: number, s: AbortSample) => void;

/** `notBefore` (epoch ms): the workers start measuring no earlier, e.g. at a start shared by shards. */
export async function runJobs(jobs: readonly JobSpec[], threads: boolean, notBefore?: number, onLive?: OnLive, onAbort?: OnAbortSample): Promise<MergedResult> {
  const barrier = startBarrier(jobs.length, threads ? 50 : 5, notBefore);
  const sinks = (i: number): JobSinks => ({
    ...(onLive ? { live: (s: LiveSnapshot) => onLive(i, s) } : {}),
    ...(onAbort ? { abort: (s: AbortSample) => onAbort(i, s) } : {}),
  });
  const outputs = await Promise.all(jobs.map((j, i) => (threads ? inWorker(j, barrier.wait, sinks(i)) : runJob(j, barrier.wait, sinks(i)))));
  return { ...mergeOutputs(outputs), startMs: Math.round(await barrier.gate) };
}

export function mergeOutputs(outputs: readonly JobOutput[]): MergedResult {
  const engines = outputs.map((o) => o.engine);
  return {
    ...mergeHistograms(engines.map((e) => e.histogram)),
    ...errorHistograms(engines.map((e) => e.errorHistogram)),
    ...addTallies(engines),
    timeline: mergeTimelines(engines.map((e) => e.timeline)),
    wallMs: Math.max(0, ...engines.map((e) => e.wallMs)),
    generatorBusy: engines.map((e) => (e.wallMs > 0 ? e.generatorMs / e.wallMs : 0)),
    prepareMs: engines.map((e) => e.prepareMs),
    loopUtilization: engines.map((e) => e.loopUtilization),
    checks: outputs.flatMap((o) => o.checks),
    stats: addCounts(outputs.map((o) => o.stats)),
    phases: mergePhases(engines.map((e) => e.phases)),
  };
}
