/**
 * The readings zoo and the kill matrix under the nemesis (docs/nemesis.md), on the properties the
 * nemesis bears on (the usage laws, the commit laws, races.linearizable), at a moderate rate:
 * - every zoo case that switches a reading those properties read runs once, not told its readings:
 *   the retries turn no departure from a reading into a violation (assumption findings stay allowed);
 * - the faults of the kill matrix in those areas are still killed with the nemesis on, each by a
 *   finding `detectsFault` counts (src/mutants/mutants.ts).
 * One seed each, to stay affordable in the slow tier (figure in test/layout/tiers.test.ts).
 */
import { describe, it } from 'vitest';
import COMMITS from '../../properties/commits.ts';
import RACES from '../../properties/races.ts';
import USAGE from '../../properties/usage.ts';
import { detectsFault } from '../../src/mutants/mutants.ts';
import type { Property } from '../../src/check/property.ts';
import { runProperties, type RunResult } from '../../src/check/run/index.ts';
import { faultInfo, startReference, type FaultName } from '../../src/reference/index.ts';
import { parseProfile } from '../../src/target/profile.ts';
import { ZOO_CASES } from './zoo.ts';
import { failingLines } from './guesses.ts';

const NEMESIS = 'lose-response=10%,reset-mid-request=5%,duplicate=5%';
const SEED = 31;
/** usage.concurrent-reports races two reports by design: the nemesis bears on it no differently. */
const PROPS: readonly Property[] = [...USAGE.filter((p) => p.id !== 'usage.concurrent-reports'), ...COMMITS, ...RACES.filter((p) => p.id === 'races.linearizable')];
const READ: ReadonlySet<string> = new Set(PROPS.flatMap((p) => p.assumptions));
/** The zoo cases that switch a reading one of these properties reads. */
const CASES = ZOO_CASES.filter((c) => Object.keys(c.readings).some((name) => READ.has(name)));

/** The usage and commit faults of the kill matrix, each with an expected killer among PROPS. */
const SAMPLE: readonly FaultName[] = [
  'usage-summed',
  'usage-last-write-wins',
  'usage-per-field-max',
  'stale-base-accepted',
  'create-overwrites',
  'partial-batch',
  'operation-id-ignored',
  'seq-per-batch',
  'check-then-act-rename-delete',
];

async function underNemesis(options: Parameters<typeof startReference>[0], props: readonly Property[], o: { readonly runs: number; readonly endOnFailure: boolean }): Promise<RunResult> {
  const ref = await startReference({ port: 0, ...options });
  try {
    const profile = parseProfile({ ...(ref.profile as object), nemesis: NEMESIS } as never);
    return await runProperties(profile, props, { seed: SEED, runs: o.runs, embedded: true, propertiesAtOnce: 4, perPropertyMs: 40_000, endOnFailure: o.endOnFailure });
  } finally {
    await ref.close();
  }
}

// Concurrent (vitest's maxConcurrency, 5): each case starts its own reference and run, and a case
// spends most of its time waiting out lost answers (~30 s of wall for ~8 s of CPU one at a time).
describe.concurrent('the readings zoo under the nemesis', () => {
  it('holds the cases whose readings these properties read', ({ expect }) => {
    expect(CASES.length).toBeGreaterThan(10);
    expect(CASES.some((c) => 'operation-id-idempotency' in c.readings)).toBe(true);
  });
  for (const c of CASES) {
    it(`${c.label}: no violation with lost answers, cut bodies and duplicates`, async ({ expect }) => {
      const r = await underNemesis({ readings: c.readings }, PROPS, { runs: 2, endOnFailure: false });
      expect(failingLines(r.results)).toEqual([]);
      expect(r.nemesis?.retries).toBeGreaterThan(0);
    }, 120_000);
  }
});

describe.concurrent('the kill matrix under the nemesis', () => {
  for (const name of SAMPLE) {
    it(`${name} is still killed`, async ({ expect }) => {
      const info = faultInfo(name);
      const props = PROPS.filter((p) => info.expectedKillers.includes(p.id));
      expect(props.length, 'an expected killer among the properties the nemesis bears on').toBeGreaterThan(0);
      // endOnFailure: a kill needs one failing case, not its shrinking.
      const r = await underNemesis({ faults: [name] }, props, { runs: 6, endOnFailure: true });
      const kills = r.results.flatMap((p) => p.findings.filter((f) => detectsFault(f, info)));
      expect(kills.length).toBeGreaterThan(0);
    }, 120_000);
  }
});
