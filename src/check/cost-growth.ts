/**
 * Cost growth of one request dimension (a list's length, a string's length, a batch's size): how a
 * request's latency grows as that one dimension grows, all else fixed. The spec states no latency,
 * so what this finds is a smell (`performance`), never a violation; it must not cry wolf on a busy,
 * shared machine, hence:
 *
 * - the sizes are interleaved in a fresh random order every round, after a warm-up round that is
 *   discarded (JIT, connection, caches), so a busy spell of the machine hits every size alike;
 * - each size's cost is its fastest request over the rounds (preemption only ever adds time), and
 *   the marginal cost is that minus the baseline's (the smallest request's) fastest;
 * - a measurement is suspect when the largest size's marginal cost is beyond `SUSPECT_FACTOR` times
 *   what a linear model fitted on the small sizes predicts, the excess over that prediction is at
 *   least `MIN_EXCESS_MS` and a whole baseline request, and the log-log exponent fitted over the
 *   upper sizes is at least `SUSPECT_EXPONENT` (1 for linear cost, 2 for quadratic); a suspicion
 *   only costs a second measurement;
 * - a suspicion is measured again, from scratch, and reported only when the second measurement is
 *   suspect too and the fastest latencies of both together pass the verdict's stricter bars: a
 *   factor `LINEAR_FACTOR` over the linear model, an exponent of `MIN_EXPONENT`, and growth worse
 *   than linear over each of the last two doublings of the size (`DOUBLING_FACTOR`): a one-off step
 *   (a garbage collection only the largest request triggers, a buffer crossing a threshold) raises
 *   one doubling, a quadratic term raises them all.
 *
 * Everything is bounded: the sizes, the rounds, and a deadline after which the dimension is left
 * inconclusive. A suspicion raised before the deadline is confirmed even past it, within
 * `CONFIRM_ALLOWANCE` times what its first measurement took: on a slow machine a real defect would
 * otherwise be dropped for want of time, a miss that depends on the machine's load.
 */

/** One dimension of a request to probe. */
export interface CostDimension {
  /** Short name, e.g. `blob_ids`. */
  readonly name: string;
  /** What grows, in words, for the finding ("blob_ids per op (50 ops per batch)"). */
  readonly what: string;
  /** The smallest size: the baseline request. */
  readonly baseline: number;
  /** The sizes probed, ascending, the largest the spec's limit. */
  readonly sizes: readonly number[];
}

/** Sends one request of this size; resolves to its latency in ms, or a reason it cannot be measured. */
export type SendSized = (size: number) => Promise<{ readonly ms: number } | { readonly refused: string }>;

export interface CostPoint {
  readonly size: number;
  /** Fastest latency over the rounds (ms). */
  readonly ms: number;
}

export interface CostEvidence {
  readonly baseline: CostPoint;
  readonly points: readonly CostPoint[];
  /** Fitted exponent of marginal cost against size (log-log least squares); NaN when too few points rose. */
  readonly exponent: number;
  /** The largest size's marginal cost over the linear model's prediction from the small sizes. */
  readonly linearRatio: number;
  /** The largest size's marginal cost beyond the linear prediction (ms). */
  readonly excessMs: number;
  /** How much the marginal cost grew over each of the last two doublings of the size (2 for linear cost, 4 for quadratic). */
  readonly doublings: readonly number[];
  /** Ratio, excess and exponent all point to growth worse than linear (the lower bars): worth measuring again. */
  readonly suspect: boolean;
  /** The verdict's bars: ratio, excess and exponent, and every one of the last two doublings worse than linear. */
  readonly superlinear: boolean;
}

export type CostVerdict =
  | { readonly kind: 'linear'; readonly evidence: CostEvidence; readonly requests: number; readonly ms: number }
  | { readonly kind: 'superlinear'; readonly evidence: CostEvidence; readonly first: CostEvidence; readonly requests: number; readonly ms: number }
  | { readonly kind: 'inconclusive'; readonly reason: string; readonly requests: number; readonly ms: number };

/** Rounds over every size, after the discarded warm-up round. */
export const COST_ROUNDS = 4;
/** How far above the linear prediction the largest size's marginal cost must be for the verdict. */
export const LINEAR_FACTOR = 2;
/** The fitted exponent the verdict needs (linear cost fits ~1, quadratic ~2). */
export const MIN_EXPONENT = 1.4;
/** The lower bars that make a measurement suspect (worth a second one): a ratio to the linear model and an exponent. */
export const SUSPECT_FACTOR = 1.5;
export const SUSPECT_EXPONENT = 1.25;
/** The smallest excess over the linear prediction that counts (ms); below it, noise. */
export const MIN_EXCESS_MS = 3;
/** How much each of the last two doublings of the size must multiply the marginal cost by (linear: 2, quadratic: 4). */
export const DOUBLING_FACTOR = 2.5;
/** A confirming measurement may run past the deadline by this many times what the first measurement took. */
export const CONFIRM_ALLOWANCE = 1.5;

/** Sizes for a dimension: the baseline, then limit/8, limit/4, limit/2 and the limit (distinct, above the baseline). */
export function sizesUpTo(limit: number, baseline: number): number[] {
  const sizes = [limit / 8, limit / 4, limit / 2, limit].map((x) => Math.max(baseline + 1, Math.round(x)));
  return [...new Set(sizes)].filter((x) => x <= limit).sort((a, b) => a - b);
}

function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den > 0 ? num / den : NaN;
}

/** The verdict on one measurement: fastest latency per size, the baseline's included. */
export function judgeCost(baseline: CostPoint, points: readonly CostPoint[]): CostEvidence {
  const pts = [...points].sort((a, b) => a.size - b.size);
  const marginal = pts.map((p) => ({ size: p.size - baseline.size, cost: p.ms - baseline.ms }));
  // The linear model through the origin of marginal cost, fitted on the two smallest sizes.
  const small = marginal.slice(0, 2);
  const den = small.reduce((a, m) => a + m.size * m.size, 0);
  const perUnit = den > 0 ? Math.max(0, small.reduce((a, m) => a + m.size * m.cost, 0) / den) : 0;
  const top = marginal[marginal.length - 1];
  const predicted = top ? perUnit * top.size : 0;
  const topCost = top?.cost ?? 0;
  const linearRatio = predicted > 0 ? topCost / predicted : topCost > 0 ? Infinity : 0;
  const excessMs = topCost - predicted;
  // Fitted over the upper three sizes, where a superlinear term dominates and the smallest, noisiest costs weigh least.
  const rose = marginal.slice(-3).filter((m) => m.cost > 0 && m.size > 0);
  const exponent = rose.length >= 3 ? slope(rose.map((m) => Math.log(m.size)), rose.map((m) => Math.log(m.cost))) : NaN;
  // Growth per doubling of the size between consecutive points (normalised to an exact doubling); NaN where the smaller cost did not rise.
  const doublings = marginal.slice(-3).flatMap((m, i, last) => {
    if (i === 0) return [];
    const prev = last[i - 1]!;
    return [prev.cost > 0 && m.cost > 0 ? (m.cost / prev.cost) ** (Math.LN2 / Math.log(m.size / prev.size)) : NaN];
  });
  const everyDoubling = doublings.length === 2 && doublings.every((d) => d >= DOUBLING_FACTOR);
  const excessive = excessMs >= Math.max(MIN_EXCESS_MS, baseline.ms);
  const suspect = excessive && linearRatio >= SUSPECT_FACTOR && exponent >= SUSPECT_EXPONENT;
  const superlinear = excessive && linearRatio >= LINEAR_FACTOR && exponent >= MIN_EXPONENT && everyDoubling;
  return { baseline, points: pts, exponent, linearRatio, excessMs, doublings, suspect, superlinear };
}

/** A small seeded generator for the order of the sizes in each round (xorshift32). */
function shuffler(seed: number): <T>(xs: readonly T[]) => T[] {
  let s = seed | 0 || 0x9e3779b9;
  const next = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
  return (xs) => {
    const out = [...xs];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  };
}

interface Measured {
  readonly evidence?: CostEvidence;
  /** Fastest latency per size, the baseline's included. */
  readonly fastest?: ReadonlyMap<number, number>;
  readonly refused?: string;
  readonly requests: number;
}

async function measureOnce(d: CostDimension, send: SendSized, shuffle: <T>(xs: readonly T[]) => T[], deadline: number): Promise<Measured> {
  const all = [d.baseline, ...d.sizes];
  const fastest = new Map<number, number>();
  let requests = 0;
  for (let round = 0; round <= COST_ROUNDS; round++) {
    for (const size of shuffle(all)) {
      if (Date.now() > deadline) return { refused: 'the probe\'s time budget ran out', requests };
      const r = await send(size);
      requests++;
      if ('refused' in r) return { refused: r.refused, requests };
      if (round === 0) continue; // warm-up
      fastest.set(size, Math.min(fastest.get(size) ?? Infinity, r.ms));
    }
  }
  return { evidence: judgeFastest(d, fastest), fastest, requests };
}

function judgeFastest(d: CostDimension, fastest: ReadonlyMap<number, number>): CostEvidence {
  const point = (size: number): CostPoint => ({ size, ms: fastest.get(size)! });
  return judgeCost(point(d.baseline), d.sizes.map(point));
}

/**
 * Probes one dimension: a measurement, and when it suspects growth worse than linear, a second one
 * from scratch that must be suspect too, judged with the first (the fastest of both per size).
 * `deadline` (epoch ms) bounds the first; the second may pass it by `CONFIRM_ALLOWANCE` times the
 * first's duration.
 */
export async function probeCost(d: CostDimension, send: SendSized, o: { readonly seed: number; readonly deadline: number }): Promise<CostVerdict> {
  const started = Date.now();
  const shuffle = shuffler(o.seed);
  const first = await measureOnce(d, send, shuffle, o.deadline);
  const ms = () => Date.now() - started;
  if (!first.evidence) return { kind: 'inconclusive', reason: first.refused ?? 'not measured', requests: first.requests, ms: ms() };
  if (!first.evidence.suspect) return { kind: 'linear', evidence: first.evidence, requests: first.requests, ms: ms() };
  const again = await measureOnce(d, send, shuffle, Math.max(o.deadline, Date.now() + CONFIRM_ALLOWANCE * ms()));
  const requests = first.requests + again.requests;
  if (!again.evidence) return { kind: 'inconclusive', reason: `a suspicion could not be confirmed: ${again.refused ?? 'not measured'}`, requests, ms: ms() };
  const both = new Map([...first.fastest!].map(([size, t]) => [size, Math.min(t, again.fastest!.get(size) ?? t)]));
  const pooled = judgeFastest(d, both);
  if (!again.evidence.suspect || !pooled.superlinear) return { kind: 'linear', evidence: pooled, requests, ms: ms() };
  return { kind: 'superlinear', evidence: pooled, first: first.evidence, requests, ms: ms() };
}

const fmt = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : String(x));

/** The evidence in one line: sizes and fastest latencies, the exponent, the ratio to the linear model. */
export function describeEvidence(d: Pick<CostDimension, 'what'>, e: CostEvidence): string {
  const pts = [e.baseline, ...e.points].map((p) => `${p.size}: ${p.ms.toFixed(1)} ms`).join(', ');
  return `${d.what}: fastest per size ${pts}; fitted exponent of the marginal cost ${fmt(e.exponent)}; marginal cost ×${e.doublings.map(fmt).join(', ×')} over the last two doublings (linear: ×2); at the largest size ${fmt(e.linearRatio)}× the linear model fitted on the small sizes (${e.excessMs.toFixed(1)} ms beyond it)`;
}
