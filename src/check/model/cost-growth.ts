/**
 * Cost growth of one request dimension (a list's length, a string's length, a batch's size): how a
 * request's latency grows as that one dimension grows, all else fixed. The spec states no latency,
 * so what this finds is a smell (`performance`), never a violation; it must not cry wolf on a busy,
 * shared machine, hence:
 *
 * - the sizes are climbed from the smallest, each round of a size beside a baseline request in a
 *   shuffled order, after a discarded warm-up (JIT, connection, caches), so a busy spell of the
 *   machine hits the size and the baseline alike; once the largest size has run, the smaller ones and
 *   the baseline are measured again (`RECHECK_ROUNDS`): the first sizes of the climb ran on a cold heap
 *   and JIT, and the linear model rests on them (inflated, they hid a quadratic term);
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
 * inconclusive.
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
  | { readonly kind: 'inconclusive'; readonly reason: string; readonly requests: number; readonly ms: number; readonly reached?: number };

/** Rounds over every size, after the discarded warm-up round. */
export const COST_ROUNDS = 4;
/** Rounds over the sizes below the largest once it has run. */
export const RECHECK_ROUNDS = 2;
/** How far above the linear prediction the largest size's marginal cost must be for the verdict. */
export const LINEAR_FACTOR = 2;
/** The fitted exponent the verdict needs (linear cost fits ~1, quadratic ~2). */
export const MIN_EXPONENT = 1.4;
/** The lower bars that make a measurement suspect (worth a second one): a ratio to the linear model and an exponent. */
export const SUSPECT_FACTOR = 1.5;
export const SUSPECT_EXPONENT = 1.25;
/** The smallest excess over the linear prediction that makes a measurement suspect (ms); below it, noise. */
export const MIN_EXCESS_MS = 3;
/**
 * The smallest excess over the linear prediction the verdict needs (ms): at the spec's limit, less
 * than this per maximal request starves nobody. The correct reference's mildest curves (the members of
 * a free-form object, ~n log n) stay under 5 ms beyond the line on a busy machine; every quadratic fault
 * of the catalogue is 60 ms or more beyond it.
 */
export const VERDICT_MIN_EXCESS_MS = 10;
/** How much each of the last two doublings of the size must multiply the marginal cost by (linear: 2, quadratic: 4). */
export const DOUBLING_FACTOR = 2.5;

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
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
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
    const prev = last[i - 1];
    return [prev.cost > 0 && m.cost > 0 ? (m.cost / prev.cost) ** (Math.LN2 / Math.log(m.size / prev.size)) : NaN];
  });
  const everyDoubling = doublings.length === 2 && doublings.every((d) => d >= DOUBLING_FACTOR);
  const excessive = excessMs >= Math.max(MIN_EXCESS_MS, baseline.ms);
  const suspect = excessive && linearRatio >= SUSPECT_FACTOR && exponent >= SUSPECT_EXPONENT;
  const superlinear = excessive && excessMs >= VERDICT_MIN_EXCESS_MS && linearRatio >= LINEAR_FACTOR && exponent >= MIN_EXPONENT && everyDoubling;
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
      // i and j are within out (a Fisher-Yates swap); its element type admits undefined
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  };
}

interface Measured {
  readonly evidence?: CostEvidence;
  /** Fastest latency per size, the baseline's included. */
  readonly fastest?: ReadonlyMap<number, number>;
  /** A size whose fastest request cost many times what the linear model allows: evidence in itself once a second measurement sees it too. */
  readonly outlier?: { readonly size: number; readonly ms: number; readonly predicted: number };
  readonly refused?: string;
  /** The largest size measured before the measurement stopped. */
  readonly reached?: number;
  readonly requests: number;
}

/** How many times its linear prediction one size's fastest request must cost to be evidence on its own (in both measurements). */
export const OUTLIER_FACTOR = 8;
/** The smallest excess over that prediction an outlier needs (ms), and at least this many baselines. */
export const OUTLIER_MIN_MS = 20;
export const OUTLIER_BASELINES = 2;

/** The marginal cost per unit of size a linear model fits through what was measured (least squares through the origin). */
function perUnit(baseline: number, fastest: ReadonlyMap<number, number>): number {
  const base = fastest.get(baseline) ?? 0;
  let num = 0;
  let den = 0;
  for (const [size, ms] of fastest) {
    if (size === baseline) continue;
    num += (size - baseline) * (ms - base);
    den += (size - baseline) ** 2;
  }
  return den > 0 ? Math.max(0, num / den) : 0;
}

/** What the two measurements of one dimension share. */
interface Measurement {
  readonly d: CostDimension;
  readonly send: SendSized;
  readonly shuffle: <T>(xs: readonly T[]) => T[];
  /** Each round's request and its baseline request sent together (`ProbeOptions.pairsTogether`). */
  readonly together: boolean;
}

/**
 * One measurement, climbing: the baseline, then each size from the smallest up (each doubling the
 * last), every round of a size beside a request of the baseline so drift hits both; fastest of the
 * rounds. Before each size the linear model fitted so far says what it should cost: a size whose time
 * at that rate would pass the deadline is not begun (the measurement stops, with how far it got), and
 * a size whose fastest request costs many times the model's prediction is evidence in itself (once
 * confirmed by a second measurement), without climbing further. So a slow server is judged within the budget, on what it reached.
 */
async function measureOnce(m: Measurement, deadline: number): Promise<Measured> {
  const { d, send, shuffle, together } = m;
  const fastest = new Map<number, number>();
  let requests = 0;
  let reached: number | undefined;
  const take = async (size: number): Promise<number | string> => {
    const r = await send(size);
    requests++;
    return 'refused' in r ? r.refused : r.ms;
  };
  /** The fastest time per size is what is kept; a refusal ends the measurement, with its reason. */
  const keep = (size: number, ms: number | string): string | undefined => {
    if (typeof ms === 'string') return ms;
    fastest.set(size, Math.min(fastest.get(size) ?? Infinity, ms));
    return undefined;
  };
  // Warm-up (JIT, connection, caches): the baseline and the smallest size, discarded.
  for (const size of [d.baseline, d.sizes[0] ?? d.baseline]) {
    if (Date.now() > deadline) return { refused: 'the probe\'s time budget ran out', requests };
    const w = await take(size);
    if (typeof w === 'string') return { refused: w, requests };
  }
  for (const size of d.sizes) {
    const base = fastest.get(d.baseline);
    const predicted = base === undefined ? 0 : perUnit(d.baseline, fastest) * (size - d.baseline);
    const last = reached === undefined ? undefined : fastest.get(reached);
    // Time this size will take at the rate seen so far: a request of it and one of the baseline per round.
    const perRound = Math.max(base ?? 0, 0) + Math.max(base === undefined ? 0 : base + predicted, last ?? 0);
    if (reached !== undefined && Date.now() + COST_ROUNDS * perRound > deadline) return { refused: `the probe's time budget ran out before ${d.what} ${size}`, reached, fastest, requests };
    for (let round = 0; round < COST_ROUNDS; round++) {
      if (Date.now() > deadline) return { refused: `the probe's time budget ran out at ${d.what} ${size}`, ...(reached !== undefined ? { reached } : {}), fastest, requests };
      const pair = shuffle([d.baseline, size]);
      const took = together ? await Promise.all(pair.map(take)) : [await take(pair[0]), await take(pair[1])];
      for (const [k, ms] of took.entries()) {
        const refused = keep(pair[k], ms);
        if (refused !== undefined) return { refused, requests };
      }
    }
    // Even the fastest of the rounds many times the linear model's prediction: evidence in itself, no need to climb further.
    const at = fastest.get(size)!;
    if (base !== undefined && reached !== undefined) {
      const now = fastest.get(d.baseline)!; // the baseline size is measured first, so it has a fastest time
      const excess = at - now - predicted;
      if (excess >= Math.max(OUTLIER_MIN_MS, OUTLIER_BASELINES * now) && at - now > OUTLIER_FACTOR * Math.max(predicted, 0)) {
        return { outlier: { size, ms: at, predicted: now + predicted }, reached: size, fastest, requests };
      }
    }
    reached = size;
  }
  // The smaller sizes again, interleaved, now that the largest has run: the first sizes of the climb
  // ran on a cold heap and JIT, and the linear model rests on them.
  const below = [d.baseline, ...d.sizes.slice(0, -1)];
  for (let round = 0; round < RECHECK_ROUNDS && Date.now() < deadline; round++) {
    for (const s of shuffle(below)) {
      const refused = keep(s, await take(s));
      if (refused !== undefined) return { refused, requests };
    }
  }
  return { evidence: judgeFastest(d, fastest), fastest, reached, requests };
}

function judgeFastest(d: CostDimension, fastest: ReadonlyMap<number, number>): CostEvidence {
  // asked only for sizes that were measured, each of which has a fastest time
  const point = (size: number): CostPoint => ({ size, ms: fastest.get(size)! });
  return judgeCost(point(d.baseline), d.sizes.filter((s) => fastest.has(s)).map(point));
}

export interface ProbeOptions {
  /** Orders the sizes of each round. */
  readonly seed: number;
  /** Epoch ms: the first measurement's bound (see `probeCost`). */
  readonly deadline: number;
  /**
   * Send each round's request and its baseline request together instead of one after the other: over
   * a real network it halves the round trips the climb pays. The baseline is the smallest request, so
   * on a server that serves one request at a time it delays the other by little more than its own
   * cost, and the fastest of the rounds keeps the rounds where it did not; the rounds that measure the
   * smaller sizes again stay one request at a time.
   */
  readonly pairsTogether?: boolean;
}

/** A confirming measurement may run past the deadline by this many times what the first measurement took. */
export const CONFIRM_ALLOWANCE = 1.5;

/**
 * Probes one dimension: a climbing measurement, and when it suspects growth worse than linear, a
 * second one from scratch that must be suspect too, judged with the first (the fastest of both per
 * size). `deadline` (epoch ms) bounds the first; a suspicion raised before it is confirmed even past
 * it, within `CONFIRM_ALLOWANCE` times the first's duration (on a slow machine a real defect would
 * otherwise be dropped for want of time). A size taking many times its linear prediction, twice, is
 * evidence on its own and confirmed the same way. A measurement that did not reach the largest size
 * in time leaves the dimension inconclusive, with how far it got.
 */
export async function probeCost(d: CostDimension, send: SendSized, o: ProbeOptions): Promise<CostVerdict> {
  const started = Date.now();
  const m: Measurement = { d, send, shuffle: shuffler(o.seed), together: o.pairsTogether ?? false };
  const first = await measureOnce(m, o.deadline);
  const ms = () => Date.now() - started;
  const allowance = () => Math.max(o.deadline, Date.now() + CONFIRM_ALLOWANCE * ms());
  if (!first.outlier) {
    if (!first.evidence) return { kind: 'inconclusive', reason: first.refused ?? 'not measured', requests: first.requests, ms: ms(), ...(first.reached !== undefined ? { reached: first.reached } : {}) };
    if (!first.evidence.suspect) return { kind: 'linear', evidence: first.evidence, requests: first.requests, ms: ms() };
  }
  // A suspicion (an outlier, or growth past the lower bars): measured again from scratch.
  const again = await measureOnce(m, allowance());
  const requests = first.requests + again.requests;
  const firstEvidence = first.evidence ?? outlierEvidence(d, first, first);
  if (again.outlier) return { kind: 'superlinear', evidence: outlierEvidence(d, first, again), first: firstEvidence, requests, ms: ms() };
  if (!again.evidence) return { kind: 'inconclusive', reason: `a suspicion could not be confirmed: ${again.refused ?? 'not measured'}`, requests, ms: ms() };
  // An outlier the second measurement did not see again may still have been the tip of a curve that
  // grows worse than linearly: the second measurement is judged as one after any suspicion, pooled with the first.
  const pooled = judgeFastest(d, fastestOfBoth(first, again));
  if (!again.evidence.suspect || !pooled.superlinear) return { kind: 'linear', evidence: pooled, requests, ms: ms() };
  return { kind: 'superlinear', evidence: pooled, first: firstEvidence, requests, ms: ms() };
}

/** The fastest cost per size over two measurements (a size either measured counts). */
function fastestOfBoth(a: Measured, b: Measured): Map<number, number> {
  const sizes = new Map<number, number>();
  for (const m of [a, b]) for (const [size, t] of m.fastest ?? []) sizes.set(size, Math.min(sizes.get(size) ?? Infinity, t));
  return sizes;
}

/** The evidence of an outlier: the sizes measured up to it (fastest of both measurements), judged as any measurement is. */
function outlierEvidence(d: CostDimension, a: Measured, b: Measured): CostEvidence {
  return { ...judgeFastest(d, fastestOfBoth(a, b)), superlinear: true, suspect: true };
}

/**
 * One dimension's measurement as data, for reports and for anyone who reads a performance finding
 * without parsing its message: the fastest cost per size (the baseline's first), and the figures the
 * verdict read. Figures that could not be computed (too few points rose) are null.
 */
export interface CostCurve {
  readonly dimension: string;
  readonly what: string;
  /** What a point's cost is: the request's latency, or the in-process reference's CPU time over it. */
  readonly measure: 'latency' | 'cpu';
  readonly verdict: 'linear' | 'superlinear';
  /** Fastest cost per size (ms), the baseline first. */
  readonly points: readonly CostPoint[];
  readonly exponent: number | null;
  readonly linearRatio: number | null;
  readonly excessMs: number;
  readonly doublings: readonly (number | null)[];
}

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

export function costCurve(d: Pick<CostDimension, 'name' | 'what'>, e: CostEvidence, measure: CostCurve['measure']): CostCurve {
  return {
    dimension: d.name,
    what: d.what,
    measure,
    verdict: e.superlinear ? 'superlinear' : 'linear',
    points: [e.baseline, ...e.points].map((p) => ({ size: p.size, ms: p.ms })),
    exponent: finite(e.exponent),
    linearRatio: finite(e.linearRatio),
    excessMs: e.excessMs,
    doublings: e.doublings.map(finite),
  };
}

const fmt = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : String(x));

/** The evidence in one line: sizes and fastest latencies, the exponent, the ratio to the linear model. */
export function describeEvidence(d: Pick<CostDimension, 'what'>, e: CostEvidence): string {
  const pts = [e.baseline, ...e.points].map((p) => `${p.size}: ${p.ms.toFixed(1)} ms`).join(', ');
  return `${d.what}: fastest per size ${pts}; fitted exponent of the marginal cost ${fmt(e.exponent)}; marginal cost ×${e.doublings.map(fmt).join(', ×')} over the last two doublings (linear: ×2); at the largest size ${fmt(e.linearRatio)}× the linear model fitted on the small sizes (${e.excessMs.toFixed(1)} ms beyond it)`;
}
