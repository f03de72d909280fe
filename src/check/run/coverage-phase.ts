/**
 * The coverage phase: before fast-check's random phase, a property that enumerates coverage cases
 * (`Property.coverage`) has every one of them judged once, with its own `check`, several at a time.
 * The cases are the same in every run, so a defect in one variant of one field (one forbidden
 * character accepted, one required field read as null when absent) is found whatever the seed.
 * Each case is already minimal: a failing one is reported as it is, with its curl lines and a
 * replay token naming its constraint, side and variant (no shrinking).
 */
import type { Profile } from '../../target/profile.ts';
import type { CoverageObservation, CoverageResult } from './coverage-table.ts';
import type { CoverageCase, Failure, Property } from '../property.ts';
import { encodeReplayToken } from './replay-token.ts';
import { caseNameOf, coverageInventory, readingsStamp } from './token-stamp.ts';
import { runCase, type CaseDeps, type CaseRun } from './case-runner.ts';
import { caseFinding } from './evidence.ts';
import type { OutcomeSink } from './outcome-sink.ts';
import { inPool } from './pool.ts';
import { EvidenceRetention } from './retention.ts';
import type { Finding } from './result.ts';

/** A replay token's path for a coverage case (fast-check's paths are digits and colons): the token names the case. */
export const COVERAGE_PATH = 'c';

/** The path a replay runs coverage case `index` by, once its token's case name is found (token-fit.ts). */
export function coverageReplayPath(index: number): string {
  return `c${index}`;
}

/** The coverage case a replay path names, or undefined for a fast-check path. */
export function coverageIndex(path: string): number | undefined {
  const m = /^c(\d+)$/.exec(path);
  return m ? Number(m[1]) : undefined;
}

/** The property's coverage cases (none when it declares no coverage), or why they could not be built (the suite's fault). */
export function coverageCasesOf<T>(prop: Property<T>, profile: Profile): { readonly cases: readonly CoverageCase<T>[]; readonly error?: string } {
  try {
    return { cases: prop.coverage ? prop.coverage(profile) : [] };
  } catch (err) {
    return { cases: [], error: `pouchproof could not build the property's coverage cases: ${err instanceof Error ? err.message : String(err)}` };
  }
}

export interface CoveragePhase {
  readonly ran: number;
  readonly observations: readonly CoverageObservation[];
  /** One finding per constraint broken, in case order. */
  readonly findings: readonly Finding[];
  /** The case under which the target went down. */
  readonly crashed?: CaseRun;
}

export interface CoverageRun {
  readonly deps: CaseDeps;
  readonly sink: OutcomeSink;
  readonly concurrency: number;
  /** Stop at the first failing case (mutation testing). */
  readonly endOnFailure: boolean;
  /** Run only the case of this index (a replay). */
  readonly only?: number;
  readonly onCase?: (done: number) => void;
}

function observed(c: CoverageCase<unknown>, r: CaseRun | undefined): CoverageResult {
  if (!r || r.cut || r.crashed) return 'unjudged';
  if (r.outcome.ok) return r.exchanges.length > 0 && c.exact !== false ? 'observed' : 'unjudged';
  switch (r.outcome.kind) {
    case 'violation':
    case 'server-error':
      return 'failed';
    case 'assumption':
      return 'assumption';
    default:
      return 'unjudged';
  }
}

export async function runCoveragePhase(prop: Property, cases: readonly CoverageCase<unknown>[], r: CoverageRun): Promise<CoveragePhase> {
  const picked = r.only === undefined ? cases.map((c, i) => ({ c, i })) : cases.flatMap((c, i) => (i === r.only ? [{ c, i }] : []));
  let done = 0;
  let failed = false;
  const { counter, signal } = r.deps;
  const retention = new EvidenceRetention();
  // What each case observed, read before its exchanges may be dropped.
  const results: CoverageResult[] = [];
  const runs = await inPool(
    picked,
    r.concurrency,
    async ({ c, i }, k) => {
      // Named by its place in the property's whole table, whichever cases run beside it (or alone, replayed).
      const run = await runCase(prop, c.input, r.deps, `c${i}`);
      r.onCase?.(++done);
      if (!run.outcome.ok && (run.outcome.kind === 'violation' || run.outcome.kind === 'server-error')) failed = true;
      results[k] = observed(c, run);
      return retention.hold(k, run, c.constraint);
    },
    () => signal.aborted || counter.unreachable || counter.crash !== undefined || (r.endOnFailure && failed),
    r.deps.slots,
  );
  const observations: CoverageObservation[] = [];
  const stamp = { readings: readingsStamp(r.deps.profile.assumptions), inventory: coverageInventory(cases) };
  const failures = new Map<string, { first: Finding; count: number }>();
  let crashed: CaseRun | undefined;
  picked.forEach(({ c, i }, k) => {
    const run = runs[k];
    observations.push({ constraint: c.constraint, side: c.side, variant: c.variant, result: results[k] ?? observed(c, run) });
    if (!run) return;
    if (run.crashed) crashed ??= run;
    const failure: Failure | undefined = r.sink.take('coverage', run, `coverage case ${i} (${c.variant} of ${c.constraint})`);
    if (!failure) return;
    const had = failures.get(c.constraint);
    if (had) {
      had.count++;
      return;
    }
    const secrets = r.deps.profile.secrets;
    failures.set(c.constraint, {
      count: 1,
      first: caseFinding(prop, failure, { input: c.input, exchanges: run.exchanges, label: `coverage case ${i} (${c.variant} of ${c.constraint})` }, secrets, {
        replay: encodeReplayToken({ property: prop.id, seed: 0, path: COVERAGE_PATH, runs: 1, coverageCase: caseNameOf(c), ...stamp }),
        shrinks: 0,
        detectedAfterRequests: run.requestsAtEnd,
      }),
    });
  });
  const findings = [...failures.values()].map(({ first, count }) => (count > 1 ? { ...first, occurrences: count } : first));
  return { ran: done, observations, findings, ...(crashed ? { crashed } : {}) };
}
