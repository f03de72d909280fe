/**
 * The chains commits.batch-chains sends keep the state rules a server may add where section 3 shows
 * none (support/commits.ts `liveChains`): chaining is then judged alone.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LATER_TYPES, liveChains } from '../../properties/support/commits.ts';

describe('liveChains', () => {
  it('sends a restore only to a deleted artifact, nothing else to one, and leaves every artifact live', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...LATER_TYPES), { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 3 }), (types, artifacts) => {
        const chain = liveChains(types, Array.from({ length: artifacts }, (_, k) => k));
        const deleted = Array.from({ length: artifacts }, () => false);
        for (const [type, k] of chain) {
          expect(type === 'restore').toBe(deleted[k]);
          deleted[k] = type === 'delete';
        }
        expect(deleted.every((d) => !d)).toBe(true);
        // The drawn ops keep their artifact in turn; only restores are added, at the end.
        expect(chain.slice(0, types.length).map(([, k]) => k)).toEqual(types.map((_, i) => i % artifacts));
        expect(chain.slice(types.length).every(([t]) => t === 'restore')).toBe(true);
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it('keeps each drawn type a live artifact takes, and turns a restore of a live one into its delete', () => {
    expect(liveChains(['update', 'rename', 'resolve'], [0])).toEqual([['update', 0], ['rename', 0], ['resolve', 0]]);
    expect(liveChains(['restore', 'update', 'delete'], [0])).toEqual([['delete', 0], ['restore', 0], ['delete', 0], ['restore', 0]]);
    expect(liveChains(['delete', 'delete'], [0, 1])).toEqual([['delete', 0], ['delete', 1], ['restore', 0], ['restore', 1]]);
  });
});
