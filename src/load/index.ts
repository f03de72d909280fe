/**
 * The load engine's public face. `quickCommitThroughput` is the short run `npm start` ends with;
 * `pouchproof load` and anything that writes reports go through src/report/load-run.ts (runLoad).
 */
import type { Profile } from '../target/profile.ts';
import { loadScenario } from './job.ts';
import { executeLoad, type LoadRunResult } from './run.ts';
import { resolveParams } from './scenario.ts';

export { executeLoad, type ExecuteOptions, type LoadRunResult, type CurveResult } from './run.ts';
export { parseThreshold, evaluateThresholds, ThresholdError, type Threshold, type ThresholdResult } from './thresholds.ts';
export { parseDuration, parseRate } from './units.ts';
export { isLoopbackUrl } from './remote.ts';
export type { Scenario, RequestSource, LoadRequest, LoadResponse, CheckResult } from './scenario.ts';

/** Warm-up plus start-up and checks, kept inside the caller's bound. */
const OVERHEAD_MS = 2500;
const WARMUP_MS = 1000;

/**
 * A short closed-model commit-throughput run (default parameters, one worker thread) within
 * `durationMs` all told. The scenario is found by URL at run time, as worker threads find it, so
 * this layer never imports the scenarios statically.
 */
export async function quickCommitThroughput(profile: Profile, o: { durationMs: number; signal?: AbortSignal }): Promise<Omit<LoadRunResult, 'histogram'>> {
  if (o.signal?.aborted) throw new Error('interrupted before the load run');
  const url = new URL('../../scenarios/commit-throughput.ts', import.meta.url).href;
  const scenario = await loadScenario(url);
  const { histogram: _histogram, ...rest } = await executeLoad({
    scenario,
    scenarioUrl: url,
    params: resolveParams(scenario),
    profile,
    model: { kind: 'closed' },
    connections: profile.connections,
    workers: 1,
    durationMs: Math.max(1000, o.durationMs - OVERHEAD_MS),
    maxRequests: 10_000_000,
    timeoutMs: profile.timeouts.requestMs,
    seed: Date.now() & 0x7fffffff,
    warmupMs: WARMUP_MS,
    thresholds: [],
    runId: 'start-load',
    target: { url: profile.baseUrl, embedded: true },
  });
  return rest;
}
