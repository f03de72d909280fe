/**
 * `load merge`: shards added into one run. Histograms add exactly (HdrHistogram buckets, tag by
 * tag); counters add; timelines are laid on one clock (each shard's seconds shifted by how much
 * later than the earliest it started); thresholds are judged on the whole, as one run would judge
 * them. Which shards were missing, given twice or late is said, never guessed around.
 */
import { encodeHistogram, mergeEncoded, newHistogram, spectrum, summarize } from '../stats/histogram.ts';
import { ERROR_LATENCY_TAG, LATENCY_TAG } from './hdr-log.ts';
import { loadRunId } from '../launch.ts';
import type { LoadRunResult, MergeNotes } from '../result.ts';
import { abortLine, ratesOf } from '../execute.ts';
import { START_TOLERANCE_MS } from './shard.ts';
import type { ShardInput } from './shard-files.ts';
import type { ShardResult } from './shard-record.ts';
import { addCounts, addTallies, mergeHistograms } from '../stats/tally.ts';
import { brokenLine, judgeThresholds, parseThreshold } from '../gates/thresholds.ts';
import { emptyBucket, type SecondBucket } from '../stats/timeline.ts';
import { PHASES, phaseFigures, phaseTag } from '../stats/phases.ts';
import { errorMessage, tableOf } from '../../spec/index.ts';

export class MergeError extends Error {}

export interface MergeOptions {
  /** Thresholds to judge; absent: the ones the shards were given. */
  readonly thresholds?: readonly string[];
  /** N, when the shards' own count should not be trusted alone. */
  readonly expectShards?: number;
  readonly runId?: string;
}

export interface MergeOutput {
  readonly result: LoadRunResult;
  /** Tag → merged histogram (encoded), every tag any shard logged. */
  readonly histograms: Readonly<Record<string, string>>;
}

function same<T>(rs: readonly ShardResult[], f: (r: ShardResult) => T, what: string): T {
  const first = f(rs[0]);
  const other = rs.find((r) => JSON.stringify(f(r)) !== JSON.stringify(first));
  if (other) throw new MergeError(`the shards are not of one run: ${what} differs (${JSON.stringify(first)} vs ${JSON.stringify(f(other))}, shard ${other.shard.index})`);
  return first;
}

/** A shard's timeline shifted `offset` seconds, added into `into`. */
function addShifted(into: SecondBucket[], t: readonly SecondBucket[], offset: number): void {
  t.forEach((b, i) => {
    const o = (into[i + offset] ??= emptyBucket());
    o.completed += b.completed;
    o.ok += b.ok;
    o.units += b.units;
    o.errors += b.errors;
    o.offered += b.offered;
  });
}

function notes(inputs: readonly ShardInput[], count: number): { notes: MergeNotes; kept: ShardInput[] } {
  const byIndex = new Map<number, ShardInput>();
  const duplicates: number[] = [];
  for (const s of inputs) {
    const i = s.record.result.shard.index;
    if (byIndex.has(i)) duplicates.push(i);
    else byIndex.set(i, s);
  }
  const kept = [...byIndex.values()].sort((a, b) => a.record.result.shard.index - b.record.result.shard.index);
  const present = kept.map((s) => s.record.result.shard.index);
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !byIndex.has(i));
  const requested = kept.map((s) => s.record.result.shard.requestedStartMs).filter((x): x is number => x !== undefined);
  // Without a shared start, lateness is measured against the earliest shard.
  const reference = requested.length ? Math.min(...requested) : Math.min(...kept.map((s) => s.record.result.startMs));
  const late = kept
    .map((s) => ({ index: s.record.result.shard.index, lateMs: Math.round(s.record.result.startMs - reference) }))
    .filter((x) => x.lateMs > START_TOLERANCE_MS);
  return {
    kept,
    notes: { count, present, missing, duplicates: [...new Set(duplicates)], late, ...(requested.length ? { requestedStartMs: reference } : {}), sources: kept.map((s) => s.source) },
  };
}

/** The whole run's stages: every shard's share of each stage, added. */
function mergedStages(rs: readonly ShardResult[]): Pick<LoadRunResult, 'stages'> {
  const first = rs[0]?.stages;
  if (!first) return {};
  const stages = first.stages.map((s, i) => ({ durationMs: s.durationMs, target: rs.reduce((a, r) => a + (r.stages?.stages[i]?.target ?? 0), 0) }));
  return { stages: { unit: first.unit, stages } };
}

/** The phases, when every shard logged them (shards from before phases were recorded have none: then no phases, rather than a part). */
function mergedPhases(kept: readonly ShardInput[], histograms: Readonly<Record<string, string>>): Pick<LoadRunResult, 'phases'> {
  if (!kept.every((s) => PHASES.every((p) => s.histograms[phaseTag(p)] !== undefined))) return {};
  return { phases: phaseFigures(tableOf(PHASES, (p) => histograms[phaseTag(p)])) };
}

/** What every shard must say alike to be parts of one run; the shard count N they agree on. */
function agreedCount(inputs: readonly ShardInput[], o: MergeOptions): number {
  if (inputs.length === 0) throw new MergeError('no shards to merge');
  const all = inputs.map((s) => s.record.result);
  const count = same(all, (r) => r.shard.count, 'the shard count N');
  if (o.expectShards !== undefined && o.expectShards !== count) throw new MergeError(`--expect-shards ${o.expectShards}, but the shards say they are ${count}`);
  same(all, (r) => r.scenario, 'the scenario');
  same(all, (r) => r.model, 'the load model');
  same(all, (r) => r.params, 'the scenario parameters');
  same(all, (r) => r.target.url, 'the target');
  return count;
}

/** The thresholds the whole is judged by: the caller's, else every shard's own. */
function mergedThresholds(kept: readonly ShardInput[], o: MergeOptions): ReturnType<typeof parseThreshold>[] {
  const sources = o.thresholds ?? [...new Set(kept.flatMap((s) => s.record.thresholds))];
  try {
    return sources.map(parseThreshold);
  } catch (e) {
    throw new MergeError(errorMessage(e));
  }
}

/** The whole run's latency figures, from the merged histograms. */
function mergedLatency(histograms: Readonly<Record<string, string>>): Pick<LoadRunResult, 'latency' | 'spectrum' | 'errorLatency' | 'errorHistogram'> {
  const h = newHistogram();
  mergeEncoded(h, histograms[LATENCY_TAG]);
  const latency = summarize(h);
  const spec = spectrum(h);
  h.destroy();
  // Shards from before failed requests were logged apart have no such tag: an empty histogram then.
  const e = newHistogram();
  if (histograms[ERROR_LATENCY_TAG]) mergeEncoded(e, histograms[ERROR_LATENCY_TAG]);
  const errorLatency = summarize(e);
  const errorHistogram = encodeHistogram(e);
  e.destroy();
  return { latency, spectrum: spec, errorLatency, errorHistogram };
}

/** The shards' timelines on one clock, from the earliest start; the whole run's wall time. */
function mergedTimeline(rs: readonly ShardResult[]): { t0: number; wallMs: number; timeline: SecondBucket[] } {
  const t0 = Math.min(...rs.map((r) => r.startMs));
  const wallMs = Math.max(...rs.map((r) => r.startMs - t0 + r.totals.wallMs));
  const timeline: SecondBucket[] = [];
  for (const r of rs) addShifted(timeline, r.timeline, Math.round((r.startMs - t0) / 1000));
  for (let i = 0; i < timeline.length; i++) timeline[i] ??= emptyBucket();
  return { t0, wallMs, timeline };
}

/** The load generators' figures side by side, and whether any shard's was the limit. */
function mergedGenerator(rs: readonly ShardResult[]): LoadRunResult['generator'] {
  const limited = rs.filter((r) => r.generator.limited).map((r) => r.shard.index);
  return {
    busy: rs.flatMap((r) => r.generator.busy),
    loopUtilization: rs.flatMap((r) => r.generator.loopUtilization),
    prepareMs: rs.flatMap((r) => r.generator.prepareMs),
    limited: limited.length > 0,
    note: limited.length
      // only reached when limited lists a shard whose generator was limited
      ? `the load generator was saturated in shard${limited.length > 1 ? 's' : ''} ${limited.join(', ')} of ${rs.length} (${rs.find((r) => r.generator.limited)!.generator.note}): the figures are a lower bound for the server`
      : `every one of the ${rs.length} shards' load generators had headroom`,
  };
}

/** Why the whole run failed, or '' when it did not: a shard's abort, a broken threshold, a failed check. */
function failedBecause(rs: readonly ShardResult[], judged: ReturnType<typeof judgeThresholds>, checks: LoadRunResult['checks']): string {
  // A shard that stopped on an abort threshold judged its own share broken: the whole did not run as planned.
  const aborts = rs.flatMap((r) => (r.aborted ? [`shard ${r.shard.index} ${abortLine(r.aborted)}`] : []));
  return [...aborts, brokenLine(judged), ...checks.filter((c) => !c.passed).map((c) => `check failed: ${c.name}`)].filter((x) => x !== undefined).join('; ');
}

export function mergeShards(inputs: readonly ShardInput[], o: MergeOptions = {}): MergeOutput {
  const count = agreedCount(inputs, o);
  const { notes: merged, kept } = notes(inputs, count);
  const rs = kept.map((s) => s.record.result);
  const thresholds = mergedThresholds(kept, o);

  const tags = [...new Set(kept.flatMap((s) => Object.keys(s.histograms)))];
  const histograms = Object.fromEntries(tags.map((t) => [t, mergeHistograms(kept.flatMap((s) => s.histograms[t] ?? [])).histogram]));
  const lat = mergedLatency(histograms);
  const { t0, wallMs, timeline } = mergedTimeline(rs);
  const tally = addTallies(rs.map((r) => ({ ...r.totals, reasons: r.reasons, kinds: r.kinds })));
  const totals = { sent: tally.sent, completed: tally.completed, ok: tally.ok, notOk: tally.notOk, errors: tally.errors, dropped: tally.dropped, unsent: tally.unsent, units: tally.units, bytesSent: tally.bytesSent, wallMs };
  const { errorRate, rates } = ratesOf(totals, wallMs);
  const judged = judgeThresholds(thresholds, { latencyUs: lat.latency, errorRate, goodput: rates.goodput, rps: rates.rps });
  const checks = rs.flatMap((r) => r.checks.map((c) => ({ ...c, name: `shard ${r.shard.index}: ${c.name}` })));
  const why = failedBecause(rs, judged, checks);
  const first = rs[0];
  const rate = rs.reduce((a, r) => a + (r.rate ?? 0), 0);
  const result: LoadRunResult = {
    runId: o.runId ?? `${loadRunId(first.scenario)}-merged`,
    scenario: first.scenario,
    description: first.description,
    unit: first.unit,
    target: first.target,
    model: first.model,
    ...(first.model === 'open' ? { rate } : {}),
    ...mergedStages(rs),
    connections: rs.reduce((a, r) => a + r.connections, 0),
    workers: rs.reduce((a, r) => a + r.workers, 0),
    durationMs: Math.max(...rs.map((r) => r.durationMs)),
    maxRequests: rs.reduce((a, r) => a + r.maxRequests, 0),
    seed: first.seed,
    params: first.params,
    startedAt: new Date(t0).toISOString(),
    startMs: t0,
    totals,
    rates,
    errorRate,
    latency: lat.latency,
    errorLatency: lat.errorLatency,
    errorHistogram: lat.errorHistogram,
    spectrum: lat.spectrum,
    histogram: histograms[LATENCY_TAG],
    timeline,
    reasons: tally.reasons,
    kinds: tally.kinds,
    stats: addCounts(rs.map((r) => r.stats)),
    checks,
    generator: mergedGenerator(rs),
    ...(first.curves ? { curves: first.curves } : {}),
    ...mergedPhases(kept, histograms),
    thresholds: judged,
    interrupted: rs.some((r) => r.interrupted),
    merged,
    ...(why ? { failedBecause: why } : {}),
  };
  return { result, histograms };
}
