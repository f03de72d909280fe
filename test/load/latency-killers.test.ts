/**
 * The faults only a latency load check sees (test/check/cost-probe-apart.ts `LATENCY_LOAD_FAULTS`),
 * killed in the timed group, which holds the cores alone: beside other test workers the correct
 * reference's p99 swells with the machine's load and can explain a stall away. Each check is also
 * silent on the correct reference, as the kill matrix requires of every load check it runs.
 */
import { describe, expect, it } from 'vitest';
import { LOAD_CHECKS } from '../../scenarios/checks.ts';
import { LATENCY_LOAD_CHECKS, LATENCY_LOAD_FAULTS } from '../check/cost-probe-apart.ts';

describe('the latency load checks, alone on the cores', () => {
  it('name a fault each, and the catalogue has them', () => {
    expect(LATENCY_LOAD_FAULTS.map((f) => f.name)).toContain('stall-periodic');
    for (const k of LATENCY_LOAD_CHECKS) expect(Object.keys(LOAD_CHECKS)).toContain(k);
  });

  for (const f of LATENCY_LOAD_FAULTS) {
    it(`${f.name} is detected by ${f.expectedKillers.join(', ')}`, async () => {
      const results = await Promise.all(f.expectedKillers.map(async (k) => ({ k, r: await LOAD_CHECKS[k]!([f.name]) })));
      expect(results.some((x) => x.r.detected), results.map((x) => `${x.k}: ${x.r.message}`).join('; ')).toBe(true);
    }, 120_000);
  }

  for (const k of LATENCY_LOAD_CHECKS) {
    it(`${k} is silent on the correct reference`, async () => {
      const r = await LOAD_CHECKS[k]!([]);
      expect(r.detected, r.message).toBe(false);
      expect(r.requests).toBeGreaterThan(100);
    }, 120_000);
  }
});
