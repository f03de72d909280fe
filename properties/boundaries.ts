/**
 * Sections 2 and 8: every limit is inclusive. A request with one field exactly at a limit's
 * minimum or maximum (or on the edge of a format: nil and all-f UUIDs, upper case, a leap day)
 * must be accepted; over-strict servers fail here.
 */
import fc from 'fast-check';
import { PASS, defineProperty, type CoverageCase, type Property } from '../src/check/property.ts';
import { atSendTime, boundariesFor, boundarySpecs, boundedConstraints, coverageBoundaries, type BoundaryCase } from '../src/gen/index.ts';
import { assumptionOf, REQUEST_CONSTRAINTS, type AssumptionName, type Constraint } from '../src/spec/index.ts';
import type { SituationAt } from '../src/check/model/situations.ts';
import { VALUE_READINGS } from './shapes.ts';
import { mustAccept, prepare } from './support/requests.ts';

interface Target {
  readonly constraint: Constraint;
  readonly variant: string;
}

/** Every path parameter's UUID, and the first UUID field of each endpoint's body. */
export function sampleUuidConstraints(): Constraint[] {
  const uuids = REQUEST_CONSTRAINTS.filter((c) => c.kind === 'uuid');
  const firstBody = new Map<string, Constraint>();
  for (const c of uuids) if (c.scope === 'body' && !firstBody.has(c.endpoint)) firstBody.set(c.endpoint, c);
  return [...uuids.filter((c) => c.scope === 'params'), ...firstBody.values()];
}

/** Every min/max variant of every bounded constraint, and the UUID edge forms. */
const TARGETS: readonly Target[] = [
  ...boundedConstraints().flatMap((c) => boundarySpecs(c).filter((s) => s.bound !== 'edge').map((s) => ({ constraint: c, variant: s.variant }))),
  ...sampleUuidConstraints().flatMap((c) =>
    boundarySpecs(c)
      .filter((s) => /^uuid:(nil|all-f|upper)$/.test(s.variant))
      .map((s) => ({ constraint: c, variant: s.variant })),
  ),
];

/**
 * A sweep, not a sample: each case covers every `STRIDE`-th target from an unbiased random offset, so a
 * default run of ~25 cases visits every limit (an off-by-one hides in exactly one of them).
 */
const STRIDE = 4;

const sweeps = new Map<number, fc.Arbitrary<BoundaryCase[]>>();
const sweepAt = (offset: number): fc.Arbitrary<BoundaryCase[]> => {
  let a = sweeps.get(offset);
  if (!a) {
    a = fc.tuple(...TARGETS.filter((_, i) => i % STRIDE === offset).map((t) => boundariesFor(t.constraint, t.variant)));
    sweeps.set(offset, a);
  }
  return a;
};
const arbSweep: fc.Arbitrary<BoundaryCase[]> = fc.noBias(fc.integer({ min: 0, max: STRIDE - 1 })).chain(sweepAt);

/** Every boundary-valid variant of every request constraint, once per run (the coverage phase), whatever the seed. */
let coverageCases: readonly CoverageCase<BoundaryCase[]>[] | undefined;
const everyBoundary = (): readonly CoverageCase<BoundaryCase[]>[] =>
  (coverageCases ??= coverageBoundaries().map((b) => ({ input: [b], constraint: b.constraintId, side: 'accept', variant: b.variant, exact: b.exact })));

/** The situations the alternatives of a boundary variant's own reading cover, at its path. */
function situationsOf(a: AssumptionName, path: string): SituationAt[] {
  return assumptionOf(a).choices.flatMap((c) => c.covers.map((situation) => ({ situation, path })));
}

const boundariesAccepted = defineProperty({
  id: 'boundaries.limits-accepted',
  section: '8',
  invariant: 'A request with one field exactly at a stated minimum or maximum (or a UUID edge form) is accepted.',
  assumptions: ['opaque-crypto-fields', 'op-semantics', 'pouch-existence', 'body-size-limit', 'cli-request-exists', 'browser-exists', 'unlock-prepare', 'caller-kinds', ...VALUE_READINGS],
  needs: ['browser', 'device'],
  arbitrary: () => arbSweep,
  coverage: everyBoundary,
  async check(ctx, cases) {
    for (const drawn of cases) {
      if (ctx.signal.aborted) break;
      const c = atSendTime(drawn);
      const endpoint = c.constraint.endpoint;
      const s = prepare(ctx, endpoint, c);
      const ex = await ctx.call({ endpoint, params: s.params, body: s.body });
      const o = await mustAccept(ctx, endpoint, ex, s, {
        what: `${endpoint} with ${c.path} at ${c.variant} (${c.constraint.text})`,
        ...(c.assumption ? { situations: situationsOf(c.assumption, c.constraint.scope === 'params' ? `params.${c.constraint.path}` : c.constraint.path) } : {}),
      });
      if (!o.ok) return o;
    }
    return PASS;
  },
  describe: (cases) => cases.map((c) => `${c.constraintId} ${c.variant} at ${c.path}`).join('\n'),
});

const BOUNDARIES: readonly Property[] = [boundariesAccepted];
export default BOUNDARIES;
