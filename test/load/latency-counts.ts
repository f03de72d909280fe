/** Counting a run's latencies from its encoded HdrHistogram (what load.json keeps), for bounds a test derives from its own runs. */
import { mergeEncoded, newHistogram } from '../../src/load/stats/histogram.ts';

/** How many recorded latencies are at least `us` (to HdrHistogram's 3 significant digits): read off the percentile where they begin. */
export function countAtLeast(encoded: string, us: number): number {
  const h = newHistogram();
  try {
    mergeEncoded(h, encoded);
    if (h.totalCount === 0 || h.maxValue < us) return 0;
    if (h.minNonZeroValue >= us) return h.totalCount;
    // The smallest percentile whose value reaches `us`: below it lie the latencies under `us`.
    let below = 0, reaches = 100;
    for (let i = 0; i < 64 && reaches - below > 1e-9; i++) {
      const mid = (below + reaches) / 2;
      if (h.getValueAtPercentile(mid) >= us) reaches = mid;
      else below = mid;
    }
    return h.totalCount - Math.round((below * h.totalCount) / 100);
  } finally {
    h.destroy();
  }
}
