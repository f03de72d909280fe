/**
 * Regression gates (`--baseline PATH/load.json`): this run against a stored one, metric by metric,
 * and relative thresholds judged on the change.
 *
 * A relative threshold bounds the change from the baseline's value, signed, in percent of it:
 *   p99<+10%      this p99 is less than 10 % above the baseline's (p99 / base p99 − 1 < +0.10)
 *   goodput>-5%   goodput fell by less than 5 % (goodput / base goodput − 1 > −0.05)
 *   capacity>-10% a capacity search's figure fell by less than 10 % (both runs searched)
 * The error rate is often zero, where a ratio means little, so it may also be bounded in percentage
 * points: errors<+0.5pp (this error rate at most half a point above the baseline's). From a zero
 * baseline any increase is an infinite percentage (and no change is 0 %).
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { LatencySummary } from '../stats/histogram.ts';
import type { BaselineComparison, ComparisonRow, LoadRunResult, LoadTarget, RelativeMetric, Spectrum } from '../result.ts';
import { compare, formatMetric, isComparator, isMetric, METRIC_ALTERNATION, metricOf, ThresholdError, type Comparator, type Measured, type ThresholdResult } from './thresholds.ts';
import { errorCode, errorMessage } from '../../spec/index.ts';

export type ChangeUnit = '%' | 'pp';

export interface RelativeThreshold {
  readonly source: string;
  readonly metric: RelativeMetric;
  readonly op: Comparator;
  /** The bound on the change, in `unit`: +10 for '+10%'. */
  readonly value: number;
  readonly unit: ChangeUnit;
}

/** Bad input about a baseline (missing, unreadable, not a load.json, another scenario): exit 4. */
export class BaselineError extends Error {}

const REL_RE = new RegExp(`^\\s*(${METRIC_ALTERNATION}|capacity)\\s*(<=|>=|<|>)\\s*([+-])\\s*([0-9]+(?:\\.[0-9]+)?)\\s*(%|pp)\\s*$`);

/** A threshold whose bound is signed (+N / −N) is relative to a baseline. */
export function isRelativeThreshold(source: string): boolean {
  return /(?:<=|>=|<|>)\s*[+-]/.test(source);
}

export function parseRelativeThreshold(source: string): RelativeThreshold {
  const m = REL_RE.exec(source);
  if (!m) throw new ThresholdError(`bad relative threshold "${source}": expected a signed change from the baseline, e.g. 'p99<+10%', 'goodput>-5%', 'errors<+0.5pp', 'capacity>-10%'`);
  const [, metric, op, , , unit] = m;
  if (!(metric === 'capacity' || isMetric(metric)) || !isComparator(op) || !(unit === '%' || unit === 'pp')) throw new ThresholdError(`bad relative threshold "${source}": unknown metric, comparison or unit`);
  if (unit === 'pp' && metric !== 'errors') throw new ThresholdError(`bad relative threshold "${source}": percentage points (pp) bound the error rate only; ${metric} changes in %`);
  return { source, metric, op, value: Number(`${m[3]}${m[4]}`), unit };
}

/** What a comparison needs of a stored load.json. */
export interface BaselineRun {
  readonly path: string;
  readonly runId: string;
  readonly scenario: string;
  readonly startedAt: string;
  readonly model: 'open' | 'closed';
  readonly rate?: number;
  readonly connections: number;
  readonly durationMs: number;
  readonly params: Readonly<Record<string, unknown>>;
  readonly target: LoadTarget;
  readonly latency: LatencySummary;
  readonly errorRate: number;
  readonly rates: { readonly rps: number; readonly goodput: number };
  readonly spectrum: Spectrum;
  readonly capacity?: number;
}

const num = z.number().finite().nonnegative();
const BaselineSchema = z.object({
  version: z.number().int(),
  runId: z.string(),
  scenario: z.string(),
  startedAt: z.string(),
  model: z.enum(['open', 'closed']),
  rate: num.optional(),
  connections: num,
  durationMs: num,
  params: z.record(z.string(), z.unknown()),
  target: z.object({ url: z.string(), embedded: z.boolean(), faults: z.array(z.string()).optional() }),
  latency: z.object({ count: num, min: num, mean: num, p50: num, p90: num, p99: num, p999: num, max: num }),
  errorRate: num,
  rates: z.object({ rps: num, goodput: num }),
  spectrum: z.array(z.object({ percentile: num, us: num })),
  capacity: z.object({ capacity: num.optional() }).optional(),
});

/** Reads a stored load.json (or the load.json in a run directory). */
export async function readBaseline(path: string): Promise<BaselineRun> {
  let file = path;
  try {
    if ((await stat(path)).isDirectory()) file = join(path, 'load.json');
  } catch {
    throw new BaselineError(`baseline ${path}: no such file`);
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new BaselineError(`baseline ${file}: cannot read it (${errorCode(e) ?? errorMessage(e)})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new BaselineError(`baseline ${file}: not JSON (expected the load.json of an earlier pouchproof load run)`);
  }
  const r = BaselineSchema.safeParse(json);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new BaselineError(`baseline ${file}: not a pouchproof load.json (${i.path.join('.') || 'top level'}: ${i.message})`);
  }
  const d = r.data;
  const capacity = d.capacity?.capacity;
  return {
    path: file, runId: d.runId, scenario: d.scenario, startedAt: d.startedAt, model: d.model, ...(d.rate !== undefined ? { rate: d.rate } : {}),
    connections: d.connections, durationMs: d.durationMs, params: d.params,
    target: { url: d.target.url, embedded: d.target.embedded, ...(d.target.faults ? { faults: d.target.faults } : {}) },
    latency: d.latency, errorRate: d.errorRate, rates: d.rates, spectrum: d.spectrum, ...(capacity !== undefined ? { capacity } : {}),
  };
}

/** Refuses, before anything runs, a baseline this run cannot be judged against. */
export function checkBaseline(b: BaselineRun, scenario: string, relative: readonly RelativeThreshold[], searching: boolean): void {
  if (b.scenario !== scenario) throw new BaselineError(`baseline ${b.path} is a run of scenario ${b.scenario}, not ${scenario}: their figures do not compare`);
  const cap = relative.find((t) => t.metric === 'capacity');
  if (cap && !searching) throw new BaselineError(`threshold "${cap.source}" needs a capacity search (--find-capacity)`);
  if (cap && b.capacity === undefined) throw new BaselineError(`threshold "${cap.source}": baseline ${b.path} holds no capacity figure (it was not a capacity search, or found none)`);
}

function measured(x: Pick<BaselineRun, 'latency' | 'errorRate' | 'rates'>): Measured {
  return { latencyUs: x.latency, errorRate: x.errorRate, goodput: x.rates.goodput, rps: x.rates.rps };
}

function metricValue(metric: RelativeMetric, m: Measured, capacity: number | undefined): number | undefined {
  return metric === 'capacity' ? capacity : metricOf(metric, m);
}

function ratio(current: number, base: number): number {
  if (base === 0) return current === 0 ? 0 : current > 0 ? Infinity : -Infinity;
  return current / base - 1;
}

const signed = (x: number, digits: number, unit: string): string => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${x.toFixed(digits)}${unit}` : `${x > 0 ? '+' : '-'}∞${unit}`);
const show = (metric: RelativeMetric, v: number): string => (metric === 'capacity' ? `${Math.round(v).toLocaleString('en-US')} req/s` : formatMetric(metric, v));

export function judgeRelative(t: RelativeThreshold, current: number, base: number): ThresholdResult {
  const change = t.unit === 'pp' ? (current - base) * 100 : ratio(current, base) * 100;
  const text = `${signed(change, t.unit === 'pp' ? 2 : 1, t.unit === 'pp' ? ' pp' : '%')} (${show(t.metric, base)} → ${show(t.metric, current)})`;
  return { threshold: t.source, passed: compare(change, t.op, t.value), actual: change, actualText: text };
}

const ROWS: readonly RelativeMetric[] = ['p50', 'p90', 'p99', 'p99.9', 'max', 'errors', 'rps', 'goodput', 'capacity'];

/** Every metric both runs have, side by side, and the relative thresholds judged. */
export function compareWithBaseline(r: LoadRunResult, b: BaselineRun, relative: readonly RelativeThreshold[]): BaselineComparison {
  const now = measured(r), then = measured(b);
  const rows: ComparisonRow[] = [];
  for (const metric of ROWS) {
    const current = metricValue(metric, now, r.capacity?.capacity);
    const baseline = metricValue(metric, then, b.capacity);
    if (current === undefined || baseline === undefined) continue;
    const change = ratio(current, baseline);
    rows.push({
      metric, baseline, current, change,
      baselineText: show(metric, baseline), currentText: show(metric, current),
      changeText: metric === 'errors' ? signed((current - baseline) * 100, 2, ' pp') : signed(change * 100, 1, '%'),
      thresholds: relative.filter((t) => t.metric === metric).map((t) => judgeRelative(t, current, baseline)),
    });
  }
  // A capacity threshold against a run that found none: broken, not silently skipped.
  const unjudged = relative.filter((t) => !rows.some((x) => x.metric === t.metric)).map((t) => ({ threshold: t.source, passed: false, actual: NaN, actualText: 'no figure in this run to compare' }));
  const thresholds = [...rows.flatMap((x) => x.thresholds), ...unjudged];
  return { path: b.path, runId: b.runId, startedAt: b.startedAt, caveats: caveats(r, b), rows, thresholds, spectrum: b.spectrum };
}

function caveats(r: LoadRunResult, b: BaselineRun): string[] {
  const out: string[] = [];
  const model = (x: { model: string; rate?: number }): string => (x.model === 'open' ? `open model at ${x.rate ?? 0} req/s` : 'closed model');
  if (!r.capacity && model(r) !== model(b)) out.push(`load differs: ${model(b)} then, ${model(r)} now`);
  if (r.connections !== b.connections) out.push(`connections differ: ${b.connections} then, ${r.connections} now`);
  if (!r.capacity && Math.abs(r.durationMs - b.durationMs) > 0.2 * b.durationMs) out.push(`duration differs: ${b.durationMs / 1000} s then, ${r.durationMs / 1000} s now`);
  const params = (p: Readonly<Record<string, unknown>>): string => JSON.stringify(Object.entries(p).sort(([a], [c]) => a.localeCompare(c)));
  if (params(r.params) !== params(b.params)) out.push('scenario parameters differ');
  const faults = (x: { faults?: readonly string[] }): string => [...(x.faults ?? [])].sort().join(', ') || 'none';
  if (r.target.embedded && b.target.embedded && faults(r.target) !== faults(b.target)) out.push(`reference faults differ: ${faults(b.target)} then, ${faults(r.target)} now`);
  if (r.target.embedded !== b.target.embedded) out.push(`target differs: ${b.target.embedded ? 'the embedded reference' : 'an external target'} then, ${r.target.embedded ? 'the embedded reference' : 'an external target'} now`);
  return out;
}

/** The run with the comparison attached and its relative thresholds among the others (a broken one fails the run: loadExitCode reads `baseline`). */
export function withBaseline(r: LoadRunResult, c: BaselineComparison): LoadRunResult {
  return { ...r, baseline: c, thresholds: [...r.thresholds, ...c.thresholds] };
}
