/**
 * The coverage table: for every request constraint of the inventory, whether a target was seen
 * accepting its boundary-valid variants and refusing its violations (a refusal counts only when its
 * minimal pair, the same request with that constraint met, was accepted).
 */
import { REQUEST_CONSTRAINTS, type ConstraintKind, type EndpointId, type Scope } from '../../spec/index.ts';
import { variantCounts } from '../../gen/index.ts';
import type { CoverageSide } from '../property.ts';

/** What one coverage case showed. */
export type CoverageResult =
  /** The target did what the constraint asks (accepted the valid edge; refused the violation while accepting its twin). */
  | 'observed'
  /** A violation or server error: the target broke the constraint (a finding). */
  | 'failed'
  /** The target follows another reading of a "not shown" the case rests on (an assumption finding). */
  | 'assumption'
  /** Sent nothing or could not judge: a constraint not in force under the run's readings, a refusal whose twin was refused too, a transport failure, a case cut by the time bound. */
  | 'unjudged';

export interface CoverageObservation {
  readonly constraint: string;
  readonly side: CoverageSide;
  readonly variant: string;
  readonly result: CoverageResult;
}

/** One side of one constraint: how many variants the generators enumerate, and what each showed. */
export interface SideCoverage {
  readonly variants: number;
  readonly observed: number;
  readonly failed: number;
  readonly assumption: number;
  /** Variants sent nowhere or not judged (not in force under a reading, skipped property, transport). */
  readonly unjudged: number;
}

/**
 * `observed`: every variant did what the constraint asks; `failed`: at least one broke it;
 * `partial`: some observed, others not judged or read otherwise; `unobserved`: none observed;
 * `none`: the generators have no variant on this side.
 */
export type SideStatus = 'observed' | 'failed' | 'partial' | 'unobserved' | 'none';

export interface CoverageRow {
  readonly constraint: string;
  readonly endpoint: EndpointId;
  readonly scope: Scope;
  readonly kind: ConstraintKind;
  readonly section: string;
  readonly accept: SideCoverage & { readonly status: SideStatus };
  readonly reject: SideCoverage & { readonly status: SideStatus };
}

export interface SideTotals {
  readonly withVariants: number;
  readonly observed: number;
  readonly failed: number;
  readonly cases: number;
}

export interface CoverageTotals {
  readonly constraints: number;
  /** Per side: constraints with at least one variant, those `observed`, those `failed`, and the cases judged on that side (0: not exercised in this run). */
  readonly accept: SideTotals;
  readonly reject: SideTotals;
  readonly cases: number;
}

export interface CoverageTable {
  readonly rows: readonly CoverageRow[];
  readonly totals: CoverageTotals;
}

export function sideStatus(s: SideCoverage): SideStatus {
  if (s.variants === 0) return 'none';
  if (s.failed > 0) return 'failed';
  if (s.observed >= s.variants) return 'observed';
  return s.observed > 0 ? 'partial' : 'unobserved';
}

/** The coverage table of a run, from the observations of its properties' coverage phases. */
export function coverageTable(observations: readonly CoverageObservation[]): CoverageTable {
  const by = new Map<string, { accept: CoverageResult[]; reject: CoverageResult[] }>();
  for (const o of observations) {
    let e = by.get(o.constraint);
    if (!e) by.set(o.constraint, (e = { accept: [], reject: [] }));
    e[o.side].push(o.result);
  }
  const side = (variants: number, seen: readonly CoverageResult[]) => {
    const n = (r: CoverageResult) => seen.filter((x) => x === r).length;
    const s: SideCoverage = { variants, observed: n('observed'), failed: n('failed'), assumption: n('assumption'), unjudged: Math.max(0, variants - n('observed') - n('failed') - n('assumption')) };
    return { ...s, status: sideStatus(s) };
  };
  const rows = REQUEST_CONSTRAINTS.map((c): CoverageRow => {
    const counts = variantCounts(c);
    const e = by.get(c.id) ?? { accept: [], reject: [] };
    return { constraint: c.id, endpoint: c.endpoint, scope: c.scope, kind: c.kind, section: c.section, accept: side(counts.accept, e.accept), reject: side(counts.reject, e.reject) };
  });
  const tally = (k: 'accept' | 'reject'): SideTotals => ({
    withVariants: rows.filter((r) => r[k].status !== 'none').length,
    observed: rows.filter((r) => r[k].status === 'observed').length,
    failed: rows.filter((r) => r[k].status === 'failed').length,
    cases: observations.filter((o) => o.side === k).length,
  });
  return { rows, totals: { constraints: rows.length, accept: tally('accept'), reject: tally('reject'), cases: observations.length } };
}
