/**
 * Holding properties to their grounds at run time: a violation must come from a judgement the
 * property lists, carrying that judgement's clause (or, for a constraint judgement, a constraint's
 * clause); an assumption finding must name a reading the property declares. Anything else is a
 * defect of pouchproof, not of the target, and is never reported as the target's.
 */
import { describeGround, type SpecClause } from '../../spec/index.ts';
import type { Failure, Outcome, Property } from '../property.ts';

export class UngroundedFinding extends Error {}

/** The outcome unchanged when it is grounded as the property declared; throws `UngroundedFinding` otherwise. */
export function vetOutcome(prop: Pick<Property, 'id' | 'judgements' | 'assumptions'>, o: Outcome): Outcome {
  if (o.ok) return o;
  switch (o.kind) {
    case 'violation': {
      const j = prop.judgements.find((x) => x.id === o.judgement);
      if (!j) throw new UngroundedFinding(`pouchproof defect: ${prop.id} returned a violation from judgement "${o.judgement}", which it does not list`);
      if (j.ground.kind === 'performance') throw new UngroundedFinding(`pouchproof defect: ${prop.id} returned a violation from "${j.id}", a cost judgement that no clause grounds`);
      if (j.ground.kind === 'reading') throw new UngroundedFinding(`pouchproof defect: ${prop.id} returned a violation from "${j.id}", which rests on reading ${j.ground.assumption}`);
      if (j.ground.kind === 'spec' && !sameClause(j.ground.clause, o.clause)) {
        throw new UngroundedFinding(`pouchproof defect: ${prop.id}'s violation from "${j.id}" cites another clause than the judgement's`);
      }
      return o;
    }
    case 'assumption':
      if (!prop.assumptions.includes(o.assumption)) {
        throw new UngroundedFinding(`pouchproof defect: ${prop.id} returned an assumption finding on ${o.assumption}, which it does not declare`);
      }
      return o;
    case 'performance': {
      // A cost smell rests on no clause: only a judgement the property lists as a performance judgement may raise one.
      const j = prop.judgements.find((x) => x.id === o.judgement);
      if (!j) throw new UngroundedFinding(`pouchproof defect: ${prop.id} returned a performance finding from judgement "${o.judgement}", which it does not list`);
      if (j.ground.kind !== 'performance') throw new UngroundedFinding(`pouchproof defect: ${prop.id} returned a performance finding from "${j.id}", which is not a performance judgement`);
      return o;
    }
    case 'server-error':
    case 'transport':
    case 'unknown':
    case 'not-applicable':
      return o;
    default:
      return o satisfies never;
  }
}

function sameClause(a: SpecClause, b: SpecClause): boolean {
  return a.section === b.section && a.quote === b.quote;
}

/** The finding fields that carry an outcome's ground. */
export function groundFields(o: Failure): { assumption?: string; judgement?: string; ground?: string; hint?: string } {
  switch (o.kind) {
    case 'violation':
      return { judgement: o.judgement, ground: describeGround({ kind: 'spec', clause: o.clause }) };
    case 'assumption':
      return { assumption: o.assumption, ground: describeGround({ kind: 'reading', assumption: o.assumption }) };
    case 'performance':
      return { judgement: o.judgement, ground: PERFORMANCE_GROUND_TEXT };
    case 'unknown':
      return o.hint ? { hint: o.hint } : {};
    case 'server-error':
    case 'transport':
    case 'not-applicable':
      return {};
    default:
      return o satisfies never;
  }
}

/** How a performance finding's ground reads in reports: no clause, a rule of thumb, reported apart. */
export const PERFORMANCE_GROUND_TEXT = 'no clause of SPEC.md: a cost smell (cost growing worse than linearly within the stated limits); reported apart, fails the run only under --fail-on performance';
