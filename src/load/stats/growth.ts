/**
 * Cost-curve analysis: how latency grows with a request's size along one axis. The local exponent
 * d log(latency) / d log(size) is at most 1 for any cost a + b·n (the fixed part a only lowers it)
 * and tends to 2 for a quadratic cost. It is fitted by least squares over the upper part of the
 * curve (sizes from a quarter of the largest up), where a superlinear term dominates; an exponent
 * clearly above 1 over a clearly measurable rise is growth worse than linear.
 *
 * Each point's cost is its fastest request, not its median: on a shared machine preemption and
 * queueing inflate medians unevenly from point to point (a quadratic server once read as linear
 * under load), while the fastest request is the request's own cost.
 *
 * A curve that looks worse than linear is only a suspicion: a busy moment of the machine can bend
 * one sweep. The axis is swept again, and the growth is reported only when the second sweep bends
 * too and the fastest request of both sweeps at each point still does (`confirmGrowth`); a real
 * defect shows in every sweep, a descheduled process rarely hits two alike.
 */
export interface CurvePoint {
  readonly value: number;
  /** The fastest request's latency in µs at this point. */
  readonly min: number;
}

export interface GrowthVerdict {
  readonly exponent: number;
  readonly superlinear: boolean;
  readonly message: string;
  /** Set when the axis was swept twice because the first sweep looked superlinear: whether the second one confirmed it. */
  readonly confirmed?: boolean;
}

/** Exponent above which growth counts as worse than linear; leaves room for noise. */
export const SUPERLINEAR_EXPONENT = 1.25;
/** Latency rise (µs) from the smallest to the largest point below which a curve is noise, not growth. */
export const MIN_GROWTH_US = 1000;
/** The fit uses the points from this fraction of the largest size up. */
export const UPPER_FRACTION = 1 / 4;

function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0, den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den > 0 ? num / den : NaN;
}

export function judgeGrowth(axis: string, points: readonly CurvePoint[]): GrowthVerdict {
  const pts = points.filter((p) => p.value > 0 && p.min > 0).sort((a, b) => a.value - b.value);
  if (pts.length < 2) return { exponent: NaN, superlinear: false, message: `${axis}: too few points to judge` };
  const top = pts[pts.length - 1].value;
  let upper = pts.filter((p) => p.value >= top * UPPER_FRACTION);
  if (upper.length < 2) upper = pts.slice(-2);
  const exponent = slope(upper.map((p) => Math.log(p.value)), upper.map((p) => Math.log(p.min)));
  const smallest = points.reduce((m, p) => (p.value < m.value ? p : m), points[0]);
  const rise = pts[pts.length - 1].min - smallest.min;
  const superlinear = exponent > SUPERLINEAR_EXPONENT && rise > MIN_GROWTH_US;
  const from = upper[0].value;
  const message = superlinear
    ? `${axis}: latency grows worse than linearly (exponent ${exponent.toFixed(2)} from ${from} to ${top}, fastest request ${(smallest.min / 1000).toFixed(2)} → ${(pts[pts.length - 1].min / 1000).toFixed(2)} ms)`
    : `${axis}: growth at most linear (exponent ${Number.isFinite(exponent) ? exponent.toFixed(2) : 'n/a'} from ${from} to ${top})`;
  return { exponent, superlinear, message };
}

/**
 * The verdict on an axis swept twice after the first sweep looked superlinear: superlinear only when
 * the second sweep is too, and so are the fastest requests of both at each point.
 */
export function confirmGrowth(axis: string, first: readonly CurvePoint[], second: readonly CurvePoint[]): GrowthVerdict {
  const again = judgeGrowth(axis, second);
  const pooled = judgeGrowth(
    axis,
    first.map((p) => ({ value: p.value, min: Math.min(p.min, second.find((q) => q.value === p.value)?.min ?? p.min) })),
  );
  const confirmed = again.superlinear && pooled.superlinear;
  const message = confirmed
    ? `${pooled.message}; confirmed by a second sweep`
    : `${axis}: growth at most linear: a first sweep looked worse than linear (exponent ${judgeGrowth(axis, first).exponent.toFixed(2)}), a second sweep did not confirm it (exponent ${again.exponent.toFixed(2)})`;
  return { exponent: pooled.exponent, superlinear: confirmed, message, confirmed };
}
