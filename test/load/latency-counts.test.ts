import { describe, expect, it } from 'vitest';
import { encodeHistogram, newHistogram, recordUs } from '../../src/load/stats/histogram.ts';
import { countAtLeast } from './latency-counts.ts';

describe('countAtLeast', () => {
  it('counts the latencies at or above a bound, to the histogram\'s precision', () => {
    const h = newHistogram();
    for (let i = 1; i <= 1000; i++) recordUs(h, i * 100);
    const encoded = encodeHistogram(h);
    h.destroy();
    const cases = [[1, 1000], [100, 1000], [50_000, 501], [75_000, 251], [99_900, 2], [99_950, 1], [100_000, 1], [100_200, 0]] as const;
    for (const [us, n] of cases) expect(countAtLeast(encoded, us), `≥ ${us} µs`).toBe(n);
    expect(countAtLeast(encodeHistogram(newHistogram()), 1)).toBe(0);
  });
});
