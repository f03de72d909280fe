import { describe, expect, it } from 'vitest';
import { evaluateThresholds, parseThreshold, ThresholdError } from '../../src/load/gates/thresholds.ts';
import { parseDuration, parseRate } from '../../src/load/units.ts';

const measured = { latencyUs: { p50: 2000, p90: 10_000, p99: 40_000, p999: 90_000, max: 120_000 }, errorRate: 0.0005, goodput: 2500, rps: 3000 };

describe('thresholds', () => {
  it('parses latency, error and rate expressions into base units', () => {
    expect(parseThreshold('p99<50ms')).toMatchObject({ metric: 'p99', op: '<', value: 50_000 });
    expect(parseThreshold('p99.9 <= 1s')).toMatchObject({ metric: 'p99.9', op: '<=', value: 1_000_000 });
    expect(parseThreshold('max<900us')).toMatchObject({ metric: 'max', value: 900 });
    expect(parseThreshold('errors<0.1%')).toMatchObject({ metric: 'errors', value: 0.001 });
    expect(parseThreshold('goodput>2000/s')).toMatchObject({ metric: 'goodput', op: '>', value: 2000 });
    expect(parseThreshold('rps>=10/s')).toMatchObject({ metric: 'rps', op: '>=', value: 10 });
  });

  it('rejects bad expressions with one line naming the expression', () => {
    for (const bad of ['p98<5ms', 'p99<50', 'errors<0.1', 'goodput>2000', 'p99 50ms', 'p99<fast', '']) {
      let err: unknown;
      try {
        parseThreshold(bad);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ThresholdError);
      expect((err as Error).message).not.toContain('\n');
    }
  });

  it('passes and breaks against measured figures', () => {
    const r = evaluateThresholds(['p99<50ms', 'p99.9<50ms', 'errors<0.1%', 'errors<0.01%', 'goodput>2000/s', 'goodput>3000/s', 'rps>=3000/s'].map(parseThreshold), measured);
    expect(r.map((x) => x.passed)).toEqual([true, false, true, false, true, false, true]);
    expect(r[1]!.actualText).toBe('90.00ms');
  });

  it('parses durations and rates', () => {
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('2m')).toBe(120_000);
    expect(parseRate('500/s')).toBe(500);
    expect(() => parseDuration('soon')).toThrow(/bad duration/);
    expect(() => parseRate('-1/s')).toThrow(/bad rate/);
  });
});
