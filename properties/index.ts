/**
 * The catalogue: every property pouchproof checks, cheapest first, so an interrupted or time-bound
 * run has covered the most ground by the time it stops.
 */
import type { Property } from '../src/check/property.ts';
import ACCOUNT from './account.ts';
import AUTH from './auth.ts';
import BOUNDARIES from './boundaries.ts';
import COMMITS from './commits.ts';
import PERFORMANCE from './performance.ts';
import RACES from './races.ts';
import REJECTION from './rejection.ts';
import ROBUSTNESS from './robustness.ts';
import ROSTER from './roster.ts';
import SEQUENCES from './sequences.ts';
import SHAPES from './shapes.ts';
import SIGNATURES from './signatures.ts';
import USAGE from './usage.ts';

const byId = (list: readonly Property[]) => new Map(list.map((p) => [p.id, p]));
const ALL = byId([...SHAPES, ...USAGE, ...COMMITS, ...SEQUENCES, ...AUTH, ...ACCOUNT, ...ROSTER, ...SIGNATURES, ...ROBUSTNESS, ...REJECTION, ...BOUNDARIES, ...RACES, ...PERFORMANCE]);

/** Cheap → expensive (measured against the embedded reference). */
const ORDER = [
  'shapes.response-envelope',
  'usage.idempotent',
  'usage.never-summed',
  'usage.monotone',
  'usage.large-totals',
  'robustness.content-type-variants',
  'commits.seq-increasing',
  'commits.batch-chains',
  'commits.create-existing-rejected',
  'commits.revision-reuse-rejected',
  'commits.stale-base-rejected',
  'commits.atomic-batch',
  'commits.operation-id-replay',
  'commits.model-sequences',
  'signatures.header-required',
  'signatures.variants-accepted',
  'approve.device-created',
  'passkeys.response-object',
  'unlock.head-seq',
  'roster.limits-only-in-roster',
  'auth.credentials-required',
  'auth.cross-account',
  'rejection.no-side-effect',
  'usage.commutative',
  'usage.associative',
  'usage.concurrent-reports',
  'robustness.oversized-body',
  'robustness.large-body-accepted',
  'races.one-winner',
  'races.linearizable',
  'shapes.valid-accepted',
  'signatures.forgeries-rejected',
  'robustness.malformed-rejected',
  'robustness.still-serving',
  'boundaries.limits-accepted',
  'rejection.violations-rejected',
  'performance.cost-growth',
  'robustness.largest-body-accepted',
];

function ordered(): Property[] {
  const out = ORDER.map((id) => {
    const p = ALL.get(id);
    if (!p) throw new Error(`properties/index.ts orders unknown property ${id}`);
    return p;
  });
  // A property added to an area file but not to ORDER still runs, last.
  for (const p of ALL.values()) if (!ORDER.includes(p.id)) out.push(p);
  return out;
}

export const ALL_PROPERTIES: readonly Property[] = Object.freeze(ordered());

export { ACCOUNT, AUTH, BOUNDARIES, COMMITS, PERFORMANCE, RACES, REJECTION, ROBUSTNESS, ROSTER, SEQUENCES, SHAPES, SIGNATURES, USAGE };
