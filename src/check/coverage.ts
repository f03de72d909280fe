/**
 * The coverage phase: before fast-check's random phase, a property that enumerates coverage cases
 * (`Property.coverage`) has every one of them judged once, with its own `check`, several at a time
 * within the profile's connection bound. The cases are the same in every run, so a defect in one
 * variant of one field (one forbidden character accepted, one required field read as null when
 * absent) is found whatever the seed. Each case is already minimal: a failing one is reported as it
 * is, with its curl lines and a replay token naming its index (no shrinking).
 *
 * What was seen lands in the coverage table: for every request constraint of the inventory, whether
 * a target was seen accepting its boundary-valid variants and refusing its violations.
 */
import type { Exchange, TargetClient } from '../target/client.ts';
import type { Profile } from '../target/profile.ts';
import { REQUEST_CONSTRAINTS, type ConstraintKind, type EndpointId, type Scope } from '../spec/index.ts';
import { variantCounts } from '../gen/coverage.ts';
import { createCaseContext, type RequestCounter } from './context.ts';
import { vetOutcome } from './grounds.ts';
import type { CoverageCase, CoverageSide, Failure, Outcome, Property } from './property.ts';

/** What one coverage case showed. */
export type CoverageResult =
  /** The target did what the constraint asks (accepted the valid edge, refused the violation). */
  | 'observed'
  /** A violation or server error: the target broke the constraint (a finding). */
  | 'failed'
  /** The target follows another reading of a "not shown" the case rests on (an assumption finding). */
  | 'assumption'
  /** Sent nothing or could not judge: a constraint not in force under the run's readings, a transport failure, a case cut by the time bound. */
  | 'unjudged';

export interface CoverageObservation {
  readonly constraint: string;
  readonly side: CoverageSide;
  readonly variant: string;
  readonly result: CoverageResult;
}

/** A failing coverage case, for the runner to turn into a finding. */
export interface CoverageFailure {
  readonly index: number;
  readonly input: unknown;
  readonly constraint: string;
  readonly variant: string;
  readonly outcome: Failure;
  readonly exchanges: readonly Exchange[];
  /** Failing cases of the same constraint (this one included). */
  readonly occurrences: number;
  /** Requests the run had sent when it was seen. */
  readonly detectedAfterRequests: number;
}

export interface CoveragePhase {
  readonly cases: number;
  readonly observations: readonly CoverageObservation[];
  /** One per constraint broken, in case order. */
  readonly failures: readonly CoverageFailure[];
  /** The case under which the target went down (the runner's crash finding names it). */
  readonly crashed?: { readonly input: unknown; readonly exchanges: Exchange[] };
}

export interface CoverageDeps {
  readonly profile: Profile;
  readonly client: TargetClient;
  readonly counter: RequestCounter;
  readonly signal: AbortSignal;
  readonly timeoutMs?: number;
  readonly embedded: boolean;
  /** Cases in flight at once (default: the profile's connections, at most MAX_COVERAGE_CONCURRENCY). */
  readonly concurrency?: number;
  /** Stop at the first failing case (mutation testing). */
  readonly endOnFailure: boolean;
  /** Records a non-failing finding (assumption, transport), deduplicated with the random phase's own. */
  readonly note: (outcome: Failure, exchanges: readonly Exchange[], input: unknown) => void;
  readonly onCase?: (cases: number) => void;
  /** Run only the case of this index (a replay). */
  readonly only?: number;
}

/** A replay token's path for coverage case `index` (fast-check's paths are digits and colons). */
export function coverageReplayPath(index: number): string {
  return `c${index}`;
}

/** The coverage case a replay path names, or undefined for a fast-check path. */
export function coverageIndex(path: string): number | undefined {
  const m = /^c(\d+)$/.exec(path);
  return m ? Number(m[1]) : undefined;
}

/** Cases in flight together: the profile's connection bound, never more than this. */
export const MAX_COVERAGE_CONCURRENCY = 16;

/** The property's coverage cases (none when it declares no coverage), or why they could not be built (the suite's fault). */
export function coverageCasesOf<T>(prop: Property<T>, profile: Profile): { readonly cases: readonly CoverageCase<T>[]; readonly error?: string } {
  try {
    return { cases: prop.coverage ? prop.coverage(profile) : [] };
  } catch (err) {
    return { cases: [], error: `pouchproof could not build the property's coverage cases: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** Runs every coverage case of a property once, `profile.connections` at a time (bounded). */
export async function runCoverage<T>(prop: Property<T>, cases: readonly CoverageCase<T>[], d: CoverageDeps): Promise<CoveragePhase> {
  const observations: CoverageObservation[] = new Array(cases.length);
  const failures = new Map<string, { first: Omit<CoverageFailure, 'occurrences'>; count: number }>();
  const picked = d.only === undefined ? undefined : d.only < cases.length ? d.only : -1;
  let next = picked ?? 0;
  const end = picked === undefined ? cases.length : picked + 1;
  let done = 0;
  let stop = false;
  let crashed: { input: unknown; exchanges: Exchange[] } | undefined;
  const width = Math.max(1, Math.min(d.concurrency ?? d.profile.connections, MAX_COVERAGE_CONCURRENCY, cases.length));

  const one = async (index: number): Promise<void> => {
    const c = cases[index]!;
    const seen = (result: CoverageResult) => (observations[index] = { constraint: c.constraint, side: c.side, variant: c.variant, result });
    const ctx = createCaseContext({ profile: d.profile, assumptions: d.profile.assumptions, client: d.client, signal: d.signal, counter: d.counter, timeoutMs: d.timeoutMs, embedded: d.embedded });
    let outcome: Outcome;
    try {
      outcome = vetOutcome(prop, await prop.check(ctx, c.input));
    } catch (err) {
      if (d.signal.aborted) return void seen('unjudged');
      outcome = { ok: false, kind: 'transport', message: `the property could not complete: ${err instanceof Error ? err.message : String(err)}` };
    }
    d.onCase?.(++done);
    const exchanges = [...ctx.exchanges].sort((a, b) => a.id - b.id);
    // The target went down under this case: the runner names it as a crash, whatever the check made of the silence.
    if (d.counter.crash) {
      crashed ??= { input: c.input, exchanges };
      stop = true;
      return void seen('unjudged');
    }
    // A case the time bound ended vouches for nothing, and a call the bound cut is pouchproof's doing, never a finding.
    if (d.signal.aborted && (outcome.ok || outcome.kind === 'transport' || exchanges.some((e) => e.failure === 'aborted'))) return void seen('unjudged');
    if (outcome.ok) return void seen(ctx.exchanges.length > 0 && c.exact !== false ? 'observed' : 'unjudged');
    if (outcome.kind === 'violation' || outcome.kind === 'server-error') {
      seen('failed');
      const had = failures.get(c.constraint);
      if (had) had.count++;
      else failures.set(c.constraint, { first: { index, input: c.input, constraint: c.constraint, variant: c.variant, outcome, exchanges, detectedAfterRequests: d.counter.total }, count: 1 });
      if (d.endOnFailure) stop = true;
      return;
    }
    seen(outcome.kind === 'assumption' ? 'assumption' : 'unjudged');
    d.note(outcome, exchanges, c.input);
  };

  const worker = async (): Promise<void> => {
    while (!stop && !d.signal.aborted && !d.counter.unreachable) {
      const i = next++;
      if (i < 0 || i >= end) return;
      await one(i);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  for (let i = picked ?? 0; i >= 0 && i < end; i++) {
    const c = cases[i]!;
    observations[i] ??= { constraint: c.constraint, side: c.side, variant: c.variant, result: 'unjudged' };
  }
  const out = [...failures.values()].map(({ first, count }) => ({ ...first, occurrences: count })).sort((a, b) => a.index - b.index);
  return { cases: done, observations: observations.filter((x) => x !== undefined), failures: out, ...(crashed ? { crashed } : {}) };
}

// ---- the coverage table ------------------------------------------------------------------------

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
