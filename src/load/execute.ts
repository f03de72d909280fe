/**
 * One load run from start to figures: split the work over workers, run the scenario (once, or once
 * per sweep point), merge, judge thresholds and checks. Choosing the target is launch.ts's business,
 * writing reports src/report's.
 */
import { Nemesis, upstreamOf } from '../target/nemesis/index.ts';
import type { Profile } from '../target/profile.ts';
import type { AbortedBy } from './engine/engine-options.ts';
import { CONTROL_COMPLETED, CONTROL_STOP, newControl, shareModel, type LoadModel } from './engine/engine.ts';
import { confirmGrowth, judgeGrowth } from './stats/growth.ts';
import { mergeEncoded, newHistogram, spectrum } from './stats/histogram.ts';
import { addCounts, addTallies, errorHistograms, mergeHistograms, type Tally } from './stats/tally.ts';
import type { JobSpec } from './job.ts';
import { globalWorkerIndex, type ShardSpec } from './shards/shard.ts';
import type { CurveResult, LoadRunResult, LoadTarget } from './result.ts';
import type { Params, Scenario, SweepPoint } from './scenario.ts';
import { AbortJudge } from './engine/abort.ts';
import { brokenLine, judgeThresholds, type Threshold } from './gates/thresholds.ts';
import { runJobs, type MergedResult } from './workers.ts';
import { mergePhases, phaseFigures } from './stats/phases.ts';
import type { LiveSink } from './metrics/metrics.ts';

export interface ExecuteOptions {
  readonly scenario: Scenario;
  readonly scenarioUrl: string;
  readonly params: Params;
  readonly profile: Profile;
  readonly model: LoadModel;
  readonly connections: number;
  /** 0: run in this thread; n ≥ 1: n worker threads. */
  readonly workers: number;
  readonly durationMs: number;
  readonly maxRequests: number;
  readonly timeoutMs: number;
  readonly seed: number;
  /** Unmeasured warm-up per run (per sweep point); default min(1 s, a tenth of the run). */
  readonly warmupMs?: number;
  readonly thresholds: readonly Threshold[];
  /** Judged only to stop the run (default: the `:abort` ones of `thresholds`); see RunLoadOptions.abortThresholds. */
  readonly abortThresholds?: readonly Threshold[];
  readonly runId: string;
  readonly target: LoadTarget;
  readonly onProgress?: (line: string) => void;
  /** How often `onProgress` is called (default PROGRESS_EVERY_MS). */
  readonly progressEveryMs?: number;
  /** Aborting ends the run early (Ctrl-C); what was measured is kept and reported as interrupted. */
  readonly signal?: AbortSignal;
  /** This run is one shard of a larger one: its workers take their slice of the identifier space. */
  readonly shard?: ShardSpec;
  /** Epoch ms: the measured window starts no earlier (a start shared by shards). */
  readonly startAtMs?: number;
  /** What `--start-at` asked for, kept in the result so a merge can tell a late shard. */
  readonly requestedStartMs?: number;
  /** Live figures go here while the run lasts (`--metrics-listen`). */
  readonly live?: LiveSink;
}

/** A worker thread whose event loop is this busy is probably the bottleneck itself. */
export const GENERATOR_LIMIT_UTILIZATION = 0.9;

function split(total: number, parts: number, i: number): number {
  return Math.floor(total / parts) + (i < total % parts ? 1 : 0);
}

async function runOnce(o: ExecuteOptions & { control: Int32Array }, params: Params, durationMs: number, maxRequests: number, seed: number, runChecks: boolean): Promise<MergedResult> {
  const n = Math.max(1, o.workers);
  if (o.connections < n) throw new RangeError(`${n} workers need at least ${n} connections`);
  // Only the run itself may be ended by an abort threshold, never one step of a sweep; they are judged
  // on the merge of every worker's samples, the process's whole view (a shard's bounds on rates come divided already).
  const aborting = new AbortJudge(o.abortThresholds ?? o.thresholds, n, o.control);
  const judge = runChecks && aborting.active ? aborting : undefined;
  const jobs: JobSpec[] = Array.from({ length: n }, (_, i) => ({
    scenarioUrl: o.scenarioUrl,
    params,
    profile: o.profile,
    workerIndex: globalWorkerIndex(o.shard, i),
    workers: n * (o.shard?.count ?? 1),
    seed: (seed + globalWorkerIndex(o.shard, i) * 0x9e37) >>> 0,
    model: shareModel(o.model, n, i),
    connections: split(o.connections, n, i),
    durationMs,
    maxRequests: Math.max(1, split(maxRequests, n, i)),
    timeoutMs: o.timeoutMs,
    runChecks,
    warmupMs: o.warmupMs ?? Math.min(1000, Math.max(100, durationMs / 10)),
    control: o.control,
    ...(judge ? { abortSampling: true } : {}),
    ...(o.live ? { live: true } : {}),
  }));
  const generation = o.live?.begin(o.model.kind === 'open' ? o.model.rate : undefined) ?? 0;
  const live = o.live;
  const merged = await runJobs(jobs, o.workers > 0, o.startAtMs, live ? (i, s) => live.update(generation, i, s) : undefined, judge ? (i, s) => judge.offer(i, s) : undefined);
  return judge?.aborted ? { ...merged, aborted: judge.aborted } : merged;
}

function perSecond(count: number, wallMs: number): number {
  return wallMs > 0 ? (count * 1000) / wallMs : 0;
}

/** The error rate and per-second rates of a tally over a wall time (one run, or shards merged). */
export function ratesOf(t: Pick<Tally, 'sent' | 'completed' | 'ok' | 'units' | 'errors' | 'dropped'>, wallMs: number): { errorRate: number; rates: LoadRunResult['rates'] } {
  const attempted = t.sent + t.dropped;
  const errorRate = attempted > 0 ? (t.errors + t.dropped) / attempted : 0;
  return { errorRate, rates: { rps: perSecond(t.completed, wallMs), okPerSecond: perSecond(t.ok, wallMs), goodput: perSecond(t.units, wallMs) } };
}

/** How often a long run reports its progress. */
export const PROGRESS_EVERY_MS = 5000;

export async function executeLoad(options: ExecuteOptions): Promise<LoadRunResult> {
  const control = newControl();
  const onAbort = (): void => void Atomics.store(control, CONTROL_STOP, 1);
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const t0 = Date.now();
  let last = 0;
  const every = options.progressEveryMs ?? PROGRESS_EVERY_MS;
  const onProgress = options.onProgress;
  const progress = onProgress
    ? setInterval(() => {
        const done = Atomics.load(control, CONTROL_COMPLETED);
        onProgress(`  ${Math.round((Date.now() - t0) / 1000)} s: ${done} responses (${Math.round(((done - last) * 1000) / every)}/s)`);
        last = done;
      }, every)
    : undefined;
  progress?.unref();
  const nemesis = options.profile.nemesis ? new Nemesis(options.profile.nemesis, options.seed, upstreamOf(options.profile)) : undefined;
  try {
    if (!nemesis) return await execute({ ...options, control });
    // One nemesis in this thread for every worker: its faults are drawn in arrival order, from the run's seed.
    const profile = { ...options.profile, nemesisPort: await nemesis.ready };
    const r = await execute({ ...options, profile, control });
    const { requests, retries, counts } = nemesis.stats();
    return { ...r, nemesis: { spec: nemesis.plan.text, seed: nemesis.seed, requests, injected: counts, retries } };
  } finally {
    if (progress) clearInterval(progress);
    options.signal?.removeEventListener('abort', onAbort);
    await nemesis?.close();
  }
}

async function execute(o: ExecuteOptions & { control: Int32Array }): Promise<LoadRunResult> {
  const startedAt = new Date().toISOString();
  let merged: MergedResult;
  let curves: CurveResult[] | undefined;
  if (o.scenario.sweep) {
    ({ merged, curves } = await sweep(o, o.scenario.sweep(o.params)));
  } else {
    merged = await runOnce(o, o.params, o.durationMs, o.maxRequests, o.seed, true);
  }

  const wallMs = merged.wallMs;
  const { errorRate, rates } = ratesOf(merged, wallMs);
  const thresholds = judgeThresholds(o.thresholds, { latencyUs: merged.latency, errorRate, goodput: rates.goodput, rps: rates.rps });
  const brokenChecks = merged.checks.filter((c) => !c.passed).map((c) => `check failed: ${c.name}`);
  const why = [abortLine(merged.aborted), brokenLine(thresholds), ...brokenChecks].filter((x) => x !== undefined).join('; ');
  return {
    runId: o.runId,
    scenario: o.scenario.name,
    description: o.scenario.description,
    unit: o.scenario.unit,
    target: o.target,
    model: o.model.kind,
    ...(o.model.kind === 'open' ? { rate: o.model.rate } : {}),
    ...(o.model.stages ? { stages: { unit: o.model.kind === 'open' ? 'rate' : 'connections', stages: o.model.stages } } : {}),
    connections: o.connections,
    workers: o.workers,
    durationMs: o.durationMs,
    maxRequests: o.maxRequests,
    seed: o.seed,
    params: o.params,
    startedAt,
    totals: {
      sent: merged.sent, completed: merged.completed, ok: merged.ok, notOk: merged.notOk, errors: merged.errors,
      dropped: merged.dropped, unsent: merged.unsent, units: merged.units, bytesSent: merged.bytesSent, wallMs,
    },
    rates,
    errorRate,
    latency: merged.latency,
    errorLatency: merged.errorLatency,
    errorHistogram: merged.errorHistogram,
    spectrum: spectrumOf(merged.histogram),
    histogram: merged.histogram,
    timeline: merged.timeline,
    reasons: merged.reasons,
    kinds: merged.kinds,
    stats: merged.stats,
    checks: merged.checks,
    generator: generatorFigures(merged),
    phases: phaseFigures(merged.phases),
    ...(curves ? { curves } : {}),
    thresholds,
    interrupted: Atomics.load(o.control, CONTROL_STOP) === 1 && !merged.aborted,
    ...(merged.aborted ? { aborted: merged.aborted } : {}),
    ...(merged.startMs !== undefined ? { startMs: merged.startMs } : {}),
    ...(o.shard ? { shard: { ...o.shard, ...(o.requestedStartMs !== undefined ? { requestedStartMs: o.requestedStartMs } : {}) } } : {}),
    ...(why ? { failedBecause: why } : {}),
  };
}

/** The load generator's own figures, and whether it (not the server) was the limit. */
function generatorFigures(merged: MergedResult): LoadRunResult['generator'] {
  const maxElu = Math.max(0, ...merged.loopUtilization);
  const maxBusy = Math.max(0, ...merged.generatorBusy);
  const limited = maxElu >= GENERATOR_LIMIT_UTILIZATION;
  const maxPrepare = Math.max(0, ...merged.prepareMs);
  const ahead = maxPrepare >= 1 ? `; before the measured window it spent ${maxPrepare.toFixed(0)} ms building requests ahead, not counted in that share` : '';
  const note = limited
    ? `the load generator itself was saturated (event loop ${(maxElu * 100).toFixed(0)}% busy, ${(maxBusy * 100).toFixed(0)}% building bodies${ahead}): the figures are a lower bound for the server; add --workers or cores`
    : `the load generator had headroom (event loop at most ${(maxElu * 100).toFixed(0)}% busy, ${(maxBusy * 100).toFixed(0)}% building bodies${ahead})`;
  return { busy: merged.generatorBusy, loopUtilization: merged.loopUtilization, prepareMs: merged.prepareMs, limited, note };
}

/** The latency spectrum of an encoded histogram. */
function spectrumOf(encoded: string): ReturnType<typeof spectrum> {
  const h = newHistogram();
  mergeEncoded(h, encoded);
  const spec = spectrum(h);
  h.destroy();
  return spec;
}

/** The console's and load.json's words for a run an abort threshold ended. */
export function abortLine(a: AbortedBy | undefined): string | undefined {
  return a ? `aborted at ${(a.atMs / 1000).toFixed(1)} s: threshold ${a.threshold} broken (actual ${a.actualText})` : undefined;
}

type Options = ExecuteOptions & { control: Int32Array };

const stopped = (o: Options): boolean => Atomics.load(o.control, CONTROL_STOP) === 1;

function curvePoint(value: number, r: MergedResult): CurveResult['points'][number] {
  return {
    value,
    min: r.latency.min,
    p50: r.latency.p50,
    p99: r.latency.p99,
    rps: perSecond(r.completed, r.wallMs),
    goodput: perSecond(r.units, r.wallMs),
    bytesPerRequest: r.sent > 0 ? Math.round(r.bytesSent / r.sent) : 0,
    ok: r.ok,
    notOk: r.notOk,
  };
}

/** One measured run per point, one after another; `first` numbers their seeds apart from other sweeps'. */
async function sweepOnce(o: Options, points: readonly SweepPoint[], budget: { ms: number; max: number }, first: number, label = ''): Promise<Array<{ axis: string; value: number; r: MergedResult }>> {
  const out: Array<{ axis: string; value: number; r: MergedResult }> = [];
  for (const [i, p] of points.entries()) {
    if ((first > 0 || i > 0) && stopped(o)) break;
    const r = await runOnce(o, p.params, budget.ms, budget.max, (o.seed + (first + i) * 101) >>> 0, false);
    o.onProgress?.(`  ${p.axis}=${p.value}${label}: p50 ${(r.latency.p50 / 1000).toFixed(2)} ms, ${perSecond(r.completed, r.wallMs).toFixed(0)} req/s`);
    out.push({ axis: p.axis, value: p.value, r });
  }
  return out;
}

/**
 * A sweep, axis by axis: an axis whose curve looks worse than linear is swept again before it is
 * flagged (growth.ts, `confirmGrowth`), so the run takes at most twice its duration. Each point then
 * shows the sweep whose fastest request was the fastest.
 */
async function sweep(o: Options, points: readonly SweepPoint[]): Promise<{ merged: MergedResult; curves: CurveResult[] }> {
  if (points.length === 0) throw new RangeError(`scenario ${o.scenario.name}: the sweep has no points`);
  const budget = { ms: Math.max(200, Math.floor(o.durationMs / points.length)), max: Math.max(1, Math.floor(o.maxRequests / points.length)) };
  const measured = await sweepOnce(o, points, budget, 0);
  const runs = measured.map((x) => x.r);
  const curves: CurveResult[] = [];
  for (const axis of [...new Set(measured.map((x) => x.axis))]) {
    const pts = measured.filter((x) => x.axis === axis).map((x) => curvePoint(x.value, x.r));
    const verdict = judgeGrowth(axis, pts);
    if (!verdict.superlinear || stopped(o)) {
      curves.push({ axis, points: pts, verdict });
      continue;
    }
    const again = await sweepOnce(o, points.filter((p) => p.axis === axis), budget, points.length + runs.length, ' (again, to confirm)');
    runs.push(...again.map((x) => x.r));
    const pts2 = again.map((x) => curvePoint(x.value, x.r));
    const fastest = pts.map((p) => pts2.find((q) => q.value === p.value && q.min < p.min) ?? p);
    curves.push({ axis, points: fastest, verdict: confirmGrowth(axis, pts, pts2) });
  }
  const merged = combine(runs);
  const flagged = curves.filter((c) => c.verdict.superlinear);
  merged.checks.push({
    name: 'cost growth at most linear',
    passed: flagged.length === 0,
    message: (flagged.length ? flagged : curves).map((c) => c.verdict.message).join('; '),
  });
  return { merged, curves };
}

/** Sweep points run one after another: their timelines are laid end to end, the rest added. */
function combine(rs: readonly MergedResult[]): MergedResult {
  const peak = (f: (r: MergedResult) => number[]): number[] => f(rs[0]).map((_, i) => Math.max(...rs.map((r) => f(r)[i] ?? 0)));
  return {
    ...mergeHistograms(rs.map((r) => r.histogram)),
    ...errorHistograms(rs.map((r) => r.errorHistogram)),
    ...addTallies(rs),
    timeline: rs.flatMap((r) => r.timeline.slice(0, Math.max(1, Math.ceil(r.wallMs / 1000)))),
    wallMs: rs.reduce((a, r) => a + r.wallMs, 0),
    generatorBusy: peak((r) => r.generatorBusy),
    prepareMs: rs[0].prepareMs.map((_, i) => rs.reduce((a, r) => a + (r.prepareMs[i] ?? 0), 0)),
    loopUtilization: peak((r) => r.loopUtilization),
    checks: rs.flatMap((r) => r.checks),
    stats: addCounts(rs.map((r) => r.stats)),
    phases: mergePhases(rs.map((r) => r.phases)),
    ...(rs[0]?.startMs !== undefined ? { startMs: rs[0].startMs } : {}),
  };
}
