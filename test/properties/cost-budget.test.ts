/**
 * performance.cost-growth on a target too slow to measure to the spec's limits within its budget: an
 * unknown finding saying how far it got, never a pass. Apart from performance.test.ts because no
 * latency decides it: the probe's own budget runs out against a fixed 600 ms a request, and a second
 * test worker beside it only slows the probe further, so it runs in the slow tier, not in the timed
 * group that holds the cores alone (vitest.config.ts `TIMED_TIER`), where it took 25 s of CI's wall.
 */
import { afterAll, describe, expect, it } from 'vitest';
import PERFORMANCE, { COST_PROBE_BUDGET_MS } from '../../properties/performance.ts';
import { runProperties } from '../../src/check/run/index.ts';
import { parseProfile } from '../../src/target/profile.ts';
import { mostlySlowProxy } from '../cli/misbehaving-servers.ts';
import { References } from './harness.ts';

const [costGrowth] = PERFORMANCE;
const refs = new References();
afterAll(() => refs.closeAll());

describe('performance.cost-growth within its budget', () => {
  it('leaves the property unjudged on a target too slow to measure to the limits within its budget: an unknown finding saying how far it got, never a pass', async () => {
    const ref = await refs.get();
    // 600 ms per request (after the first): the probe needs ~200 requests, two minutes, so its 20 s end before the six dimensions are measured.
    // A fixed delay, not a random one: a random draw of short delays once let the probe finish in time.
    const slow = await mostlySlowProxy(ref.url, Number.MAX_SAFE_INTEGER, 600);
    try {
      const profile = parseProfile({ ...(ref.profile as object), baseUrl: slow.url });
      const run = await runProperties(profile, [costGrowth], { seed: 1, runs: 1, embedded: false, perPropertyMs: 90_000 });
      const result = run.results[0]!;
      expect(result.status, JSON.stringify(result.findings)).toBe('inconclusive');
      expect(result.findings.map((f) => f.kind)).toEqual(['unknown']);
      expect(result.findings[0]!.message).toMatch(new RegExp(`could not measure every dimension to its limit within ${COST_PROBE_BUDGET_MS / 1000} s: .*(measured up to \\d+ of \\d+|ran out)`));
    } finally {
      await slow.close();
    }
  }, 120_000);
});
