/**
 * Which pouches a run may commit to, decided once for load and properties alike (assumption
 * `pouch-existence`). Under `created-on-commit` any fresh id names a new pouch; under `must-exist`
 * only the profile's listed pouches exist, so a profile that lists none cannot commit at all: a
 * problem of the run's configuration, never a finding about the target.
 */
import type { Profile } from './profile.ts';

export type PouchPlan =
  | { readonly kind: 'fresh' }
  | { readonly kind: 'listed'; readonly ids: readonly string[] }
  | { readonly kind: 'unavailable'; readonly reason: string };

export const NO_LISTED_POUCH =
  'the reading pouch-existence=must-exist needs pouchIds in the profile (only listed pouches exist, and it lists none)';

export function pouchPlan(p: Pick<Profile, 'assumptions' | 'pouchIds'>): PouchPlan {
  const reading = p.assumptions['pouch-existence'];
  switch (reading) {
    case 'created-on-commit':
      return { kind: 'fresh' };
    case 'must-exist':
      return p.pouchIds.length > 0 ? { kind: 'listed', ids: p.pouchIds } : { kind: 'unavailable', reason: NO_LISTED_POUCH };
    default:
      return reading satisfies never;
  }
}
