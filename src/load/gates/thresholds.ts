/**
 * `--threshold` expressions, k6 style: a broken threshold makes the run exit 1 so a CI job can
 * gate on it. Grammar:
 *   p50|p90|p99|p99.9|max  (<|<=|>|>=)  N(us|ms|s)
 *   errors (<|<=|>|>=) N%
 *   goodput|rps (<|<=|>|>=) N/s
 * each optionally followed by `:abort` (the run ends as soon as the threshold breaks) or
 * `:abort-after=30s` (not before 30 s into the run), k6's abortOnFail and delayAbortEval.
 */
export const METRICS = ['p50', 'p90', 'p99', 'p99.9', 'max', 'errors', 'goodput', 'rps'] as const;
export type Metric = (typeof METRICS)[number];
export type Comparator = '<' | '<=' | '>' | '>=';

/** Whether a regex group holds one of the metrics (the patterns' alternations are built from METRICS). */
export const isMetric = (s: string): s is Metric => METRICS.some((m) => m === s);
export const isComparator = (s: string): s is Comparator => s === '<' || s === '<=' || s === '>' || s === '>=';

export interface Threshold {
  readonly source: string;
  readonly metric: Metric;
  readonly op: Comparator;
  /** Latencies in µs, error rate as a fraction, rates per second. */
  readonly value: number;
  /** Judged while the run lasts, once `afterMs` into it, and ends it when broken (abort.ts). */
  readonly abort?: { readonly afterMs: number };
}

export class ThresholdError extends Error {}

const LATENCY: readonly Metric[] = ['p50', 'p90', 'p99', 'p99.9', 'max'];
const UNIT_US: Record<string, number> = { us: 1, 'µs': 1, ms: 1000, s: 1_000_000 };
/** The metric names as a regex alternation (longest first, so p99.9 is not read as p99). */
export const METRIC_ALTERNATION = [...METRICS].sort((a, b) => b.length - a.length).map((m) => m.replace('.', '\\.')).join('|');
const RE = new RegExp(`^\\s*(${METRIC_ALTERNATION})\\s*(<=|>=|<|>)\\s*([0-9]+(?:\\.[0-9]+)?)\\s*(us|µs|ms|s|%|/s)?\\s*$`);

const ABORT = /:\s*abort(?:-after\s*=\s*([0-9]+(?:\.[0-9]+)?)\s*(ms|s|m))?\s*$/;
const ABORT_UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

export function parseThreshold(source: string): Threshold {
  const a = ABORT.exec(source);
  if (!a && /:/.test(source)) throw new ThresholdError(`bad threshold "${source}": after the bound only ':abort' or ':abort-after=30s' may follow`);
  const bare = parseBound(a ? source.slice(0, a.index) : source, source);
  return a ? { ...bare, abort: { afterMs: a[1] === undefined ? 0 : Number(a[1]) * ABORT_UNIT_MS[a[2]] } } : bare;
}

function parseBound(text: string, source: string): Threshold {
  const m = RE.exec(text);
  if (!m) {
    throw new ThresholdError(`bad threshold "${source}": expected e.g. 'p99<50ms', 'errors<0.1%', 'goodput>2000/s' (metrics p50 p90 p99 p99.9 max errors goodput rps)`);
  }
  const [, metric, op] = m;
  if (!isMetric(metric) || !isComparator(op)) throw new ThresholdError(`bad threshold "${source}": unknown metric or comparison`);
  const n = Number(m[3]);
  const unit = m[4];
  if (LATENCY.includes(metric)) {
    if (!unit || !(unit in UNIT_US)) throw new ThresholdError(`bad threshold "${source}": a latency needs a unit us, ms or s`);
    return { source, metric, op, value: n * UNIT_US[unit] };
  }
  if (metric === 'errors') {
    if (unit !== '%') throw new ThresholdError(`bad threshold "${source}": errors are given in %, e.g. errors<0.1%`);
    return { source, metric, op, value: n / 100 };
  }
  if (unit !== '/s') throw new ThresholdError(`bad threshold "${source}": ${metric} is given per second, e.g. ${metric}>2000/s`);
  return { source, metric, op, value: n };
}

export interface Measured {
  readonly latencyUs: { readonly p50: number; readonly p90: number; readonly p99: number; readonly p999: number; readonly max: number };
  /** Fraction of requests the server failed to serve. */
  readonly errorRate: number;
  /** Goodput units per second. */
  readonly goodput: number;
  /** Completed requests per second. */
  readonly rps: number;
}

export interface ThresholdResult {
  readonly threshold: string;
  /** A default bound, applied because the run was given no threshold of its own. */
  readonly byDefault?: boolean;
  readonly passed: boolean;
  readonly actual: number;
  /** The actual value in the threshold's own unit, for reports. */
  readonly actualText: string;
}

/** A metric's value in a run's figures, in base units (µs, a fraction, per second). */
export function metricOf(metric: Metric, m: Measured): number {
  switch (metric) {
    case 'p50': return m.latencyUs.p50;
    case 'p90': return m.latencyUs.p90;
    case 'p99': return m.latencyUs.p99;
    case 'p99.9': return m.latencyUs.p999;
    case 'max': return m.latencyUs.max;
    case 'errors': return m.errorRate;
    case 'goodput': return m.goodput;
    case 'rps': return m.rps;
    default: return metric satisfies never;
  }
}

export function compare(a: number, op: Comparator, b: number): boolean {
  switch (op) {
    case '<': return a < b;
    case '<=': return a <= b;
    case '>': return a > b;
    case '>=': return a >= b;
    default: return op satisfies never;
  }
}

/** A metric's value in the unit thresholds are written in. */
export function formatMetric(metric: Metric, v: number): string {
  if (metric === 'errors') return `${(v * 100).toFixed(3)}%`;
  if (metric === 'goodput' || metric === 'rps') return `${v.toFixed(1)}/s`;
  return v >= 1000 ? `${(v / 1000).toFixed(2)}ms` : `${v}us`;
}

export function evaluateThresholds(list: readonly Threshold[], m: Measured): ThresholdResult[] {
  return list.map((t) => {
    const actual = metricOf(t.metric, m);
    return { threshold: t.source, passed: compare(actual, t.op, t.value), actual, actualText: formatMetric(t.metric, actual) };
  });
}

/** A threshold as one of `parts` (shards, worker threads) judges it on its share: a bound on a rate (rps, goodput) divided. */
export function shareOfThreshold(t: Threshold, parts: number): Threshold {
  return t.metric === 'rps' || t.metric === 'goodput' ? { ...t, value: t.value / parts } : t;
}

/** Error rate above which a run with no threshold of its own fails. */
export const DEFAULT_ERROR_BOUND = 0.05;

/**
 * The bounds a run is judged by when it is given none: it must have delivered some goodput and
 * served at least 1 - DEFAULT_ERROR_BOUND of its requests. A run that measured nothing good never
 * passes; any `--threshold` replaces these.
 */
export const DEFAULT_THRESHOLDS: readonly Threshold[] = [parseThreshold('goodput>0/s'), parseThreshold(`errors<=${DEFAULT_ERROR_BOUND * 100}%`)];

/** The user's thresholds, or the default bounds when there are none, evaluated. */
export function judgeThresholds(given: readonly Threshold[], m: Measured): ThresholdResult[] {
  if (given.length > 0) return evaluateThresholds(given, m);
  return evaluateThresholds(DEFAULT_THRESHOLDS, m).map((r) => ({ ...r, byDefault: true }));
}

/** One line saying why the run failed its thresholds, or undefined when none broke. */
export function brokenLine(results: readonly ThresholdResult[]): string | undefined {
  const broken = results.filter((t) => !t.passed);
  if (broken.length === 0) return undefined;
  const list = broken.map((t) => `${t.threshold} (actual ${t.actualText})`).join(', ');
  return broken.every((t) => t.byDefault) ? `no threshold given, and the default bound is broken: ${list}` : `threshold broken: ${list}`;
}
