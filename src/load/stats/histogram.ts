/**
 * Latency recording: HdrHistogram in microseconds (3 significant digits, 1 µs to 1 hour), so memory
 * is fixed however long the run. Workers ship their histograms to the parent in HdrHistogram's
 * compressed encoding, which merges exactly.
 */
import * as hdr from 'hdr-histogram-js';

export type Histogram = hdr.Histogram;

/** Highest latency recorded exactly; longer ones are clamped (and counted). */
export const HIGHEST_US = 3_600_000_000;

export function newHistogram(): Histogram {
  return hdr.build({ bitBucketSize: 32, lowestDiscernibleValue: 1, highestTrackableValue: HIGHEST_US, numberOfSignificantValueDigits: 3, autoResize: false, useWebAssembly: false });
}

export function recordUs(h: Histogram, us: number): void {
  h.recordValue(Math.max(1, Math.min(HIGHEST_US, Math.round(us))));
}

export function encodeHistogram(h: Histogram): string {
  return hdr.encodeIntoCompressedBase64(h);
}

export function mergeEncoded(into: Histogram, encoded: string): void {
  const h = hdr.decodeFromCompressedBase64(encoded, 32, false);
  into.add(h);
  h.destroy();
}

/** The percentiles every report shows, in microseconds. */
export interface LatencySummary {
  readonly count: number;
  readonly min: number;
  readonly mean: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
}

export function summarize(h: Histogram): LatencySummary {
  if (h.totalCount === 0) return { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 };
  return {
    count: h.totalCount,
    min: h.minNonZeroValue,
    mean: Math.round(h.mean),
    p50: h.getValueAtPercentile(50),
    p90: h.getValueAtPercentile(90),
    p99: h.getValueAtPercentile(99),
    p999: h.getValueAtPercentile(99.9),
    max: h.maxValue,
  };
}

/** Percentile spectrum for the report's chart: percentile → µs, on a log scale of 1/(1-q). */
export function spectrum(h: Histogram): Array<{ percentile: number; us: number }> {
  if (h.totalCount === 0) return [];
  const out: Array<{ percentile: number; us: number }> = [];
  for (const p of [0, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999, 100]) out.push({ percentile: p, us: h.getValueAtPercentile(p) });
  return out;
}
