/**
 * The cost probe's faults of the defect catalogue (docs/defects.md), each caught by
 * performance.cost-growth on the one dimension that shows it, measured alone (the whole probe against
 * `quadratic-blob-ids` is performance.test.ts). In the timed group (vitest.config.ts `TIMED_TIER`):
 * measured beside another test file in the fast tier, the probe missed `quadratic-usage-rows` once.
 * A cost smell, never a violation: a performance finding on that dimension, the property not failed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { PROBES, costGrowthOver } from '../../properties/performance.ts';
import type { Property } from '../../src/check/property.ts';
import { faultInfo, isFaultName } from '../../src/reference/faults.ts';
import { References, runAgainst, summary } from './harness.ts';

const KILLS = [
  { fault: 'envelope-regex-backtracking', dimension: 'refused-envelope' },
  { fault: 'member-names-quadratic', dimension: 'members' },
  { fault: 'quadratic-usage-rows', dimension: 'usage-rows' },
  { fault: 'quadratic-envelope', dimension: 'envelope' },
] as const;

/** The cost probe over one dimension alone. */
function probing(dimension: string): Property {
  const probes = PROBES.filter((p) => p.dimension.name === dimension);
  if (probes.length !== 1) throw new Error(`no cost probe dimension ${dimension}`);
  return costGrowthOver(probes) as Property;
}

describe('the cost probe\'s faults, each caught on its dimension', () => {
  const refs = new References();
  afterAll(() => refs.closeAll());

  for (const k of KILLS) {
    it(`${k.fault} (${k.dimension})`, async () => {
      expect(isFaultName(k.fault)).toBe(true);
      if (!isFaultName(k.fault)) return;
      expect(faultInfo(k.fault).expectedKillers).toContain('performance.cost-growth');
      const c = await runAgainst(await refs.get(k.fault), probing(k.dimension), { runs: 1 });
      expect(c.failing, summary(c)).toEqual([]);
      const found = c.result.findings.filter((f) => f.kind === 'performance');
      expect(found.map((f) => f.curves?.filter((x) => x.verdict === 'superlinear').map((x) => x.dimension)), summary(c)).toEqual([[k.dimension]]);
      expect(c.result.status).toBe('passed');
    }, 60_000);
  }
});
