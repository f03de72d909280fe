/**
 * The coverage enumeration: every variant of every request constraint, once, the same in every run.
 * Random sampling draws a few dozen of the ~1,900 variants per run, so a server that accepts one
 * forbidden character in one field (or reads one missing field as null) passes most seeds; the
 * coverage phase sends each of these exactly once whatever the seed.
 *
 * Each variant is drawn from its own generator with a fixed seed (derived from the constraint id and
 * the variant, not from the run), so the enumerated request is identical from run to run and from
 * machine to machine.
 */
import fc from 'fast-check';
import { REQUEST_CONSTRAINTS, type Constraint, type ConstraintKind } from '../spec/index.ts';
import { boundariesFor, boundarySpecs, type BoundaryCase } from './boundaries.ts';
import { coherent } from './coherence.ts';
import { fromJsonPath, withAt } from './json.ts';
import { breaksOnlyItsLabel, violationSpecs, violationsFor, type ViolationCase } from './violations.ts';

/**
 * The order constraints are enumerated in: the kinds where real validators go wrong most (limits
 * off by one, lenient formats) first, so that a run ending at its first failure (mutation testing)
 * gets there early; presence and JSON types last.
 */
const KIND_ORDER: readonly ConstraintKind[] = ['maxItems', 'minItems', 'maxLength', 'minLength', 'max', 'min', 'uuid', 'calendar', 'pattern', 'charset', 'enum', 'integer', 'required', 'not-null', 'type'];

/** The request constraints in enumeration order (stable within a kind: catalogue order). */
function ordered(): Constraint[] {
  const rank = (c: Constraint) => KIND_ORDER.indexOf(c.kind);
  return [...REQUEST_CONSTRAINTS].sort((a, b) => rank(a) - rank(b));
}

/** Seeds tried per violation variant until one draw breaks its label only (most need one). */
const DRAWS = 8;

/** A stable 32-bit seed from a string (FNV-1a), so the drawn case depends on the variant alone. */
function fixedSeed(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

function drawOne<T>(arb: fc.Arbitrary<T>, key: string, attempt: number): T {
  // fc.sample with numRuns 1 answers exactly one value
  return fc.sample(arb, { seed: fixedSeed(`${key}#${attempt}`), numRuns: 1 })[0]!;
}

/** A variant the enumeration could not draw: reported in the coverage table rather than dropped silently. */
export interface UndrawnVariant {
  readonly constraintId: string;
  readonly variant: string;
  readonly why: string;
}

export interface ViolationCoverage {
  readonly cases: readonly ViolationCase[];
  readonly undrawn: readonly UndrawnVariant[];
}

let violationMemo: ViolationCoverage | undefined;

/**
 * For a required-but-nullable field left out, whether the same request with null in its place is
 * one a server must accept (a commit's create, whose base is null): only then does a server that
 * reads the absence as null show it, instead of refusing the request for another reason.
 */
function nullWouldServe(v: ViolationCase): boolean {
  if (v.label.scope !== 'body') return true;
  const withNull = withAt(v.body, fromJsonPath(v.label.path), null);
  return JSON.stringify(coherent(v.label.endpoint, withNull)) === JSON.stringify(withNull);
}

/** Draws tried for a required-but-nullable field until one passes `nullWouldServe`. */
const NULLABLE_DRAWS = 64;

/** One case per violation variant of every request constraint (each breaking exactly its label); drawn once per process. */
export function coverageViolations(): ViolationCoverage {
  return (violationMemo ??= drawViolationCoverage());
}

/** Draws the violation enumeration afresh (the same every time: see the module comment). */
export function drawViolationCoverage(): ViolationCoverage {
  const cases: ViolationCase[] = [];
  const undrawn: UndrawnVariant[] = [];
  for (const c of ordered()) {
    for (const s of violationSpecs(c)) {
      const arb = violationsFor(c, s.variant);
      const sharp = c.kind === 'required' && c.nullable;
      let found: ViolationCase | undefined;
      for (let i = 0; i < (sharp ? NULLABLE_DRAWS : DRAWS) && !(found && (!sharp || nullWouldServe(found))); i++) {
        const v = drawOne(arb, `${c.id} ${s.variant}`, i);
        if (breaksOnlyItsLabel(v) && (!found || (sharp && nullWouldServe(v)))) found = v;
      }
      if (found) cases.push(found);
      else undrawn.push({ constraintId: c.id, variant: s.variant, why: `no draw in ${DRAWS} broke only ${c.id}` });
    }
  }
  return Object.freeze({ cases: Object.freeze(cases), undrawn: Object.freeze(undrawn) });
}

let boundaryMemo: readonly BoundaryCase[] | undefined;

/**
 * One case per boundary-valid variant of every request constraint: a draw whose location holds
 * exactly the variant where one exists (a commit's coherence rewrite owns some locations in later ops).
 */
export function coverageBoundaries(): readonly BoundaryCase[] {
  return (boundaryMemo ??= drawBoundaryCoverage());
}

/** Draws the boundary enumeration afresh. */
export function drawBoundaryCoverage(): readonly BoundaryCase[] {
  const out: BoundaryCase[] = [];
  for (const c of ordered()) {
    for (const s of boundarySpecs(c)) {
      const arb = boundariesFor(c, s.variant);
      let best = drawOne(arb, `${c.id} ${s.variant}`, 0);
      for (let i = 1; i < DRAWS && !best.exact; i++) best = drawOne(arb, `${c.id} ${s.variant}`, i);
      out.push(best);
    }
  }
  return Object.freeze(out);
}

/** How many variants the enumeration has on each side of a constraint (the coverage table's denominators). */
export function variantCounts(c: Constraint): { readonly accept: number; readonly reject: number } {
  return { accept: boundarySpecs(c).length, reject: violationSpecs(c).length };
}
