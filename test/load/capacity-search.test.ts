import { describe, expect, it } from 'vitest';
import { capacityPlan, decide, parseObjective, roundRate } from '../../src/load/gates/capacity.ts';
import { LoadUsageError } from '../../src/load/launch.ts';

const plan = { maxRate: 1000, resolution: 0.05 };

/** Drives `decide` against a server whose capacity is `knee` exactly, as findCapacity does. */
function simulate(knee: number, startRate: number, maxSteps = 30): { rates: number[]; status: string; lo?: number; hi?: number } {
  let lo: number | undefined, hi: number | undefined;
  const rates: number[] = [];
  let rate = startRate;
  for (let i = 0; i < maxSteps; i++) {
    rates.push(rate);
    if (rate <= knee) lo = Math.max(lo ?? 0, rate);
    else hi = Math.min(hi ?? Infinity, rate);
    const d = decide(plan, { offered: rate }, lo, hi);
    if ('status' in d) return { rates, status: d.status, ...(lo !== undefined ? { lo } : {}), ...(hi !== undefined ? { hi } : {}) };
    rate = d.rate;
  }
  return { rates, status: 'unfinished' };
}

describe('capacity search steps', () => {
  it('doubles to the first rate beyond, then bisects to the resolution', () => {
    const r = simulate(370, 50);
    expect(r.rates.slice(0, 5)).toEqual([50, 100, 200, 400, 300]);
    expect(r.status).toBe('found');
    expect(r.lo).toBeLessThanOrEqual(370);
    expect(r.hi).toBeGreaterThan(370);
    expect((r.hi! - r.lo!) / r.lo!).toBeLessThanOrEqual(0.05);
    expect(r.rates.length).toBeLessThan(12);
  });

  it('halves while even the start rate is beyond, and gives up at 1/s', () => {
    expect(simulate(30, 100).rates.slice(0, 3)).toEqual([100, 50, 25]);
    expect(simulate(30, 100).status).toBe('found');
    const none = simulate(0, 100);
    expect(none.status).toBe('none-within');
    expect(none.rates.at(-1)).toBe(1);
  });

  it('stops at the maximum rate when it holds', () => {
    const r = simulate(5000, 300);
    expect(r.rates).toEqual([300, 600, 1000]);
    expect(r.status).toBe('at-max-rate');
  });

  it('rounds rates to three significant digits', () => {
    expect(roundRate(1234.5)).toBe(1230);
    expect(roundRate(0.12345)).toBeCloseTo(0.123, 6);
  });
});

describe('capacity objective and plan', () => {
  it('adds the default error bound unless the objective bounds errors', () => {
    expect(parseObjective('p99<50ms').map((t) => t.source)).toEqual(['p99<50ms', 'errors<1%']);
    expect(parseObjective('p99<50ms, errors<0.1%').map((t) => t.source)).toEqual(['p99<50ms', 'errors<0.1%']);
  });

  it('refuses a bad objective or bounds with one line', () => {
    for (const bad of [() => parseObjective(''), () => parseObjective('p99<<5'), () => capacityPlan({ objective: 'p99<5ms', maxRate: 0 }), () => capacityPlan({ objective: 'p99<5ms', stepMs: 10_000, budgetMs: 5000 })]) {
      expect(bad).toThrow(LoadUsageError);
    }
    expect(() => capacityPlan({ objective: 'p99<5ms', stepMs: 10_000, budgetMs: 5000 })).toThrow(/at least one step/);
  });
});
