/**
 * One worker's share of a run: build the scenario's source, run the engine, then (optionally) its
 * invariant checks. The same function runs in a worker thread or, with `workers: 0`, in-process.
 */
import { performance } from 'node:perf_hooks';
import type { Profile } from '../target/profile.ts';
import { runEngine, type EngineResult, type LoadModel } from './engine/engine.ts';
import { Sender } from './http1/sender.ts';
import { LIVE_EVERY_MS, LiveRecorder, type LiveSnapshot } from './metrics/live.ts';
import type { CheckResult, Params, RequestSource, Scenario } from './scenario.ts';
import { ScenarioSourceError } from './define.ts';
import { importScenario } from './scenario-file.ts';
import type { AbortSample } from './engine/abort.ts';
import { errorMessage } from '../spec/index.ts';

export interface JobSpec {
  /** URL (file:) of the module whose default export is the Scenario. */
  readonly scenarioUrl: string;
  readonly params: Params;
  readonly profile: Profile;
  readonly workerIndex: number;
  readonly workers: number;
  readonly seed: number;
  readonly model: LoadModel;
  readonly connections: number;
  readonly durationMs: number;
  readonly maxRequests: number;
  /** Wall-clock start (epoch ms); absent: the `start` callback of runJob decides once every worker is ready. */
  readonly startAt?: number;
  readonly timeoutMs: number;
  readonly runChecks: boolean;
  /** Unmeasured warm-up before the start (see EngineOptions.warmupMs). */
  readonly warmupMs?: number;
  /** See EngineOptions.control. */
  readonly control?: Int32Array;
  /** Send abort samples (abort.ts) while the run lasts: the run has abort thresholds, judged on the merge of every job's samples. */
  readonly abortSampling?: boolean;
  /** Send live snapshots (live.ts) while the run lasts: `--metrics-listen`. */
  readonly live?: boolean;
}

export interface JobOutput {
  readonly engine: EngineResult;
  readonly checks: readonly CheckResult[];
  readonly stats: Readonly<Record<string, number>>;
}

/** The scenario's source for this job; the scenario's own failure is its author's input (exit 4), not pouchproof's trouble. */
function sourceOf(scenario: Scenario, job: JobSpec): RequestSource {
  try {
    return scenario.createSource({
      workerIndex: job.workerIndex,
      workers: job.workers,
      seed: job.seed,
      params: job.params,
      profile: job.profile,
      connections: job.connections,
    });
  } catch (e) {
    throw new ScenarioSourceError(`scenario ${scenario.name} could not build its requests: ${errorMessage(e)}`);
  }
}

/** Where a job's figures go while it runs: live snapshots (`--metrics-listen`) and abort samples. */
export interface JobSinks {
  readonly live?: (s: LiveSnapshot) => void;
  readonly abort?: (s: AbortSample) => void;
}

/**
 * `ready` is awaited once the scenario is loaded and its source built, and resolves to the shared
 * start time, so that slow worker start-up never counts as a stall of the target.
 */
export async function runJob(job: JobSpec, ready?: () => Promise<number>, sinks: JobSinks = {}): Promise<JobOutput> {
  const onLive = sinks.live;
  const scenario = await importScenario(job.scenarioUrl);
  const source = sourceOf(scenario, job);
  const live = job.live && onLive ? new LiveRecorder() : undefined;
  const ticker = live && onLive ? setInterval(() => onLive(live.snapshot()), LIVE_EVERY_MS) : undefined;
  ticker?.unref();
  const engine = await runEngine({
    baseUrl: job.profile.baseUrl,
    route: job.profile,
    source,
    model: job.model,
    connections: job.connections,
    durationMs: job.durationMs,
    maxRequests: job.maxRequests,
    ready: ready ?? (async () => job.startAt ?? performance.timeOrigin + performance.now()),
    warmupMs: job.warmupMs,
    timeoutMs: job.timeoutMs,
    ...(job.control ? { control: job.control } : {}),
    ...(job.abortSampling && sinks.abort ? { abortSample: sinks.abort } : {}),
    ...(live ? { observer: live } : {}),
  }).finally(() => clearInterval(ticker));
  // The last snapshot holds every request, so the counters end equal to the run's totals.
  if (live && onLive) onLive(live.snapshot());
  let checks: CheckResult[] = [];
  if (job.runChecks && source.check) {
    const sender = new Sender(job.profile.baseUrl, 1, job.timeoutMs, undefined, job.profile);
    try {
      checks = await source.check((r) => sender.request(r));
    } catch (e) {
      checks = [{ name: 'checks', passed: false, message: `could not run the checks: ${errorMessage(e)}` }];
    } finally {
      await sender.close();
    }
  }
  return { engine, checks, stats: source.stats?.() ?? {} };
}
