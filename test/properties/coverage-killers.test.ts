import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import REJECTION from '../../properties/rejection.ts';
import type { Property } from '../../src/check/property.ts';
import { parseProfile, type Profile } from '../../src/target/profile.ts';
import { References, runAgainst, summary } from './harness.ts';
import { propertySuite } from './suite.ts';

// Faults in one variant of one field, which the coverage phase finds whatever the seed (the clean
// runs of these properties are in requests.test.ts).
propertySuite('rejection: faults the coverage phase finds', REJECTION, [
  { id: 'rejection.violations-rejected', fault: 'lax-pattern', expect: 'failing' },
  { id: 'rejection.violations-rejected', fault: 'nullable-missing-as-null', expect: 'failing' },
  // Checking the day's pattern only is a reading of day-calendar-valid.
  { id: 'rejection.violations-rejected', fault: 'day-pattern-only', expect: 'assumption:day-calendar-valid' },
], { clean: false });

// One op too many in creates only (max+1:creates): where chained batches conflict for another reason
// (here the reading batch-chaining=pre-batch-heads; on a server of its own, state rules section 3 does
// not show), the chained max+1 is refused whatever its count, and only the creates show the limit.
describe('rejection: the ops limit where chained batches conflict', () => {
  const refs = new References();
  afterAll(() => refs.closeAll());
  const prop = REJECTION.find((p) => p.id === 'rejection.violations-rejected')!;
  const only = (variant: string): Property =>
    ({
      ...prop,
      arbitrary: () => fc.constant([]),
      coverage: (profile: Profile) => prop.coverage!(profile).filter((c) => c.constraint === 'commitOperations/body/ops#maxItems' && c.variant === variant),
    }) as Property;
  const run = async (variant: string) => {
    const ref = await refs.get('ops-limit-off-by-one', { 'batch-chaining': 'pre-batch-heads' });
    // The one coverage case of that variant is sent, and nothing else.
    expect(only(variant).coverage!(parseProfile(ref.profile))).toHaveLength(1);
    return runAgainst(ref, only(variant), { runs: 1 });
  };

  it('the creates variant catches ops-limit-off-by-one', async () => {
    const c = await run('max+1:creates');
    expect(c.failing.map((f) => f.message).join('\n'), summary(c)).toContain('51 creates of new artifacts');
    expect(c.result.status).toBe('failed');
  });

  it('the chained variant alone does not: its batch conflicts before its count is seen', async () => {
    const c = await run('max+1');
    expect(c.failing, summary(c)).toEqual([]);
    expect(c.result.runs).toBeGreaterThan(0);
  });
});
