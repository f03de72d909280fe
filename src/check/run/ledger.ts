/**
 * What a property vouches for, counted case by case: each case is judged (its invariant was
 * checked: it passed, or a finding the spec or a reading grounds was made), does not apply under the
 * run's readings, or was left unjudged for a named cause. A property whose judged cases fall below
 * its evidence floor is inconclusive, however quiet it was: a pass must rest on evidence, not on the
 * absence of a failure.
 */
import { DEFAULT_FLOOR, type EvidenceFloor, type Outcome } from '../property.ts';

/** Why a case was not judged. */
export type UnjudgedCause =
  /** The target follows another reading than the run's, at a point the case needed (an assumption finding). */
  | 'assumption'
  /** Neither the spec's words nor an identified reading decide it (an unknown finding). */
  | 'unknown'
  /** Timeouts, resets, a target that stopped answering, a case that could not complete. */
  | 'transport'
  /** The target kept throttling until the run's time ran out. */
  | 'throttled'
  /** The property's time bound or its share of the run's budget ended it (or left it unrun). */
  | 'time';

export const UNJUDGED_CAUSES: readonly UnjudgedCause[] = ['assumption', 'unknown', 'transport', 'throttled', 'time'];

/** How one case ended, as far as vouching goes. */
export type CaseVerdict = { readonly kind: 'judged' } | { readonly kind: 'not-applicable'; readonly why: string } | { readonly kind: 'unjudged'; readonly cause: UnjudgedCause };

export interface PhaseLedger {
  /** Cases the phase plans (the coverage cases listed, or the random cases planned). */
  readonly planned: number;
  readonly judged: number;
  /** Cases that do not apply under the run's readings: left out of the floor's count. */
  readonly notApplicable: number;
  readonly unjudged: { readonly [C in UnjudgedCause]: number };
}

export interface Ledger {
  readonly floor: EvidenceFloor;
  readonly coverage: PhaseLedger;
  readonly random: PhaseLedger;
}

/** The verdict of a case from its (vetted) outcome and whether it sent anything. */
export function verdictOf(o: Outcome, sentRequests: number): CaseVerdict {
  if (o.ok) return sentRequests > 0 ? { kind: 'judged' } : { kind: 'not-applicable', why: 'the case sent nothing' };
  switch (o.kind) {
    case 'violation':
    case 'server-error':
    case 'performance':
      return { kind: 'judged' };
    case 'assumption':
      return o.checked ? { kind: 'judged' } : { kind: 'unjudged', cause: 'assumption' };
    case 'unknown':
      return { kind: 'unjudged', cause: 'unknown' };
    case 'not-applicable':
      return { kind: 'not-applicable', why: o.message };
    case 'transport':
      return { kind: 'unjudged', cause: 'transport' };
    default:
      return o satisfies never;
  }
}

/** A phase's tally as cases end (mutable while the phase runs; `done()` freezes it). */
export class PhaseTally {
  private judged = 0;
  private notApplicable = 0;
  private readonly unjudged: Record<UnjudgedCause, number> = { assumption: 0, unknown: 0, transport: 0, throttled: 0, time: 0 };
  /** The first reason a case did not apply, for a property none of whose cases applies. */
  firstNotApplicable?: string;

  constructor(private readonly planned: number) {}

  add(v: CaseVerdict): void {
    switch (v.kind) {
      case 'judged':
        this.judged++;
        return;
      case 'not-applicable':
        this.notApplicable++;
        this.firstNotApplicable ??= v.why;
        return;
      case 'unjudged':
        this.unjudged[v.cause]++;
        return;
      default:
        return v satisfies never;
    }
  }

  /** Every planned case not accounted for ran out of time (cut by the bound, or never started). */
  done(): PhaseLedger {
    const accounted = this.judged + this.notApplicable + UNJUDGED_CAUSES.reduce((n, c) => n + this.unjudged[c], 0);
    const unjudged = { ...this.unjudged, time: this.unjudged.time + Math.max(0, this.planned - accounted) };
    return Object.freeze({ planned: Math.max(this.planned, accounted), judged: this.judged, notApplicable: this.notApplicable, unjudged: Object.freeze(unjudged) });
  }
}

/** Cases of the phase the floor counts: the planned ones that apply. */
export function applicable(p: PhaseLedger): number {
  return p.planned - p.notApplicable;
}

/** Judged cases the floor asks of a phase. */
export function required(p: PhaseLedger, share: number): number {
  return Math.ceil(applicable(p) * share - 1e-9);
}

/** Whether nothing planned applies under the run's readings (and nothing was judged). */
export function nothingApplies(l: Ledger): boolean {
  return applicable(l.coverage) + applicable(l.random) === 0 && l.coverage.judged + l.random.judged === 0 && (l.coverage.notApplicable + l.random.notApplicable) > 0;
}

/** Why the ledger falls below its floor, in one line; undefined when the floor is met. */
export function belowFloor(l: Ledger): string | undefined {
  const short: string[] = [];
  const phase = (name: string, p: PhaseLedger, share: number) => {
    const need = required(p, share);
    if (p.judged >= need) return;
    const causes = UNJUDGED_CAUSES.filter((c) => p.unjudged[c] > 0).map((c) => `${p.unjudged[c]} ${CAUSE_WORDS[c]}`);
    short.push(`judged ${p.judged} of ${applicable(p)} ${name} case${applicable(p) === 1 ? '' : 's'} (its floor: ${need})${causes.length ? `; not judged: ${causes.join(', ')}` : ''}`);
  };
  phase('coverage', l.coverage, l.floor.coverage);
  phase('random', l.random, l.floor.random);
  if (applicable(l.coverage) + applicable(l.random) === 0) return undefined;
  return short.length ? short.join('; ') : undefined;
}

const CAUSE_WORDS: { readonly [C in UnjudgedCause]: string } = {
  assumption: 'a reading the target does not follow',
  unknown: 'unknown',
  transport: 'transport failure',
  throttled: 'throttled',
  time: 'out of time',
};

export function ledgerOf(floor: EvidenceFloor | undefined, coverage: PhaseLedger, random: PhaseLedger): Ledger {
  return Object.freeze({ floor: floor ?? DEFAULT_FLOOR, coverage, random });
}

/** "judged 23 of 25 random cases, 1134 of 1134 coverage cases" — what the property vouched on. */
export function ledgerLine(l: Ledger): string {
  const part = (name: string, p: PhaseLedger) => (p.planned === 0 ? undefined : `${p.judged}/${applicable(p)} ${name}${p.notApplicable ? ` (${p.notApplicable} not applicable)` : ''}`);
  return [part('coverage', l.coverage), part('random', l.random)].filter(Boolean).join(', ') || 'no case';
}
