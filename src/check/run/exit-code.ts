/**
 * The exit codes of pouchproof, one meaning each, decided here once for the CLI, the library and the
 * vitest entry (each computes it from a result: a run's with `runExitCode`, a comparison's with
 * `comparisonExitCode`, the kill matrix's with `mutantsExitCode`, a load run's with `loadExitCode`;
 * no result stores one), so a CI job can branch on them:
 *
 * - 0 `passed`: every property reported as passed met its floor, and nothing failed. Skips alone (a
 *   capability the profile does not give, a property that does not apply under the readings) do
 *   not make a run exit 2 unless everything was skipped;
 * - 1 `failed`: the target broke the spec: a violation, a server error or a crash (or a finding of a
 *   kind `--fail-on` names); a load threshold or check broken;
 * - 2 `inconclusive`: nothing wrong was shown, but something could not be vouched for: a property
 *   pouchproof could not run (`error`), a property below its evidence floor (`inconclusive`), a run in
 *   which every property was skipped (nothing was checked), a probe that could tell nothing;
 * - 3 `unreachable`: the target could not be reached, stopped answering (requests in a row with no
 *   complete response), or timed out on most requests: a flaky server, not a verdict on it;
 * - 4 `config-error`: pouchproof's own input was wrong (a flag, a profile, a file), before anything ran.
 *
 * A finding outranks the rest (1 wins over 3: what was shown broken stays broken), and a target that
 * went away outranks what it left unvouched (3 over 2). 130 (interrupted) is the process's own
 * business: the report of an interrupted run says what it did.
 */
import { FAILING_KINDS, type FailOnKind, type PropertyResult, type PropertyStatus, type RunFindingKind, type RunResult } from './result.ts';

export const EXIT = { passed: 0, failed: 1, inconclusive: 2, unreachable: 3, configError: 4 } as const;

/** The exit code of a run that got as far as a report (a config error never does): the codes above but 4. */
export type RunExitCode = 0 | 1 | 2 | 3;

/** An exit code's meaning in one word, as the GitHub Action's `verdict` output and the reports name it. */
export type ExitVerdict = 'passed' | 'failed' | 'inconclusive' | 'unreachable' | 'config-error';

export function verdictOfExit(code: (typeof EXIT)[keyof typeof EXIT]): ExitVerdict {
  switch (code) {
    case EXIT.passed:
      return 'passed';
    case EXIT.failed:
      return 'failed';
    case EXIT.inconclusive:
      return 'inconclusive';
    case EXIT.unreachable:
      return 'unreachable';
    case EXIT.configError:
      return 'config-error';
    default:
      return code satisfies never;
  }
}

/** What the run policy reads of a run, counted: its findings by kind and its properties by status, and whether the target went away. */
export interface RunTally {
  /** Findings by kind (a kind this module does not know, from a newer runner, is counted and never fails a run). */
  readonly findings: Readonly<Partial<Record<string, number>>>;
  readonly statuses: Readonly<Partial<Record<PropertyStatus, number>>>;
  /** The target could not be reached, stopped answering, or was too slow to judge at the run's bound. */
  readonly gone: boolean;
  readonly failOn?: readonly FailOnKind[];
}

/** A run's results counted as the policy reads them. */
export function tallyOf(results: readonly PropertyResult[], gone: boolean, failOn?: readonly FailOnKind[]): RunTally {
  const findings: Partial<Record<RunFindingKind, number>> = {};
  const statuses: Partial<Record<PropertyStatus, number>> = {};
  for (const r of results) {
    statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    for (const f of r.findings) findings[f.kind] = (findings[f.kind] ?? 0) + 1;
  }
  return { findings, statuses, gone, ...(failOn ? { failOn } : {}) };
}

const count = (t: Readonly<Partial<Record<string, number>>>, k: string): number => t[k] ?? 0;

/** The run policy on a tally: a failing finding, then a target gone, then something unvouched or nothing checked. */
export function exitCodeOfTally(t: RunTally): RunExitCode {
  const found = (k: RunFindingKind): boolean => count(t.findings, k) > 0;
  const failOn: readonly FailOnKind[] = t.failOn ?? [];
  if (FAILING_KINDS.some(found) || failOn.some(found)) return EXIT.failed;
  // A target too slow to judge at the run's bound has, as far as the run can tell, stopped answering.
  if (t.gone) return EXIT.unreachable;
  if (count(t.statuses, 'error') + count(t.statuses, 'inconclusive') > 0) return EXIT.inconclusive;
  const properties = Object.values(t.statuses).reduce<number>((n, c) => n + (c ?? 0), 0);
  if (properties > 0 && count(t.statuses, 'skipped') === properties) return EXIT.inconclusive;
  return EXIT.passed;
}

/** Whether the target went away during a run: not reached, stopped answering, or too slow to judge. */
export function targetGone(run: Pick<RunResult, 'unreachable' | 'tooSlow' | 'notReached'>): boolean {
  return run.unreachable !== undefined || run.notReached !== undefined || run.tooSlow !== undefined;
}

/** The exit code of a run, from its result: the one policy every caller applies. */
export function runExitCode(run: Pick<RunResult, 'results' | 'unreachable' | 'tooSlow' | 'notReached' | 'failOn'>): RunExitCode {
  return exitCodeOfTally(tallyOf(run.results, targetGone(run), run.failOn));
}

/**
 * A side of `pouchproof compare`, as its exit code reads it: its run's tally, and why it could not be
 * judged at all when it was down from before its run (its probe got no usable answer).
 */
export interface SideTally extends RunTally {
  readonly unreachable?: string;
}

/**
 * A compared side's exit code. A side down from before its run whose only failing findings are crashes
 * did not answer at all: the runner reads its first refused request as a crash, which here shows only
 * that nothing listened (3), not that a request took it down (1).
 */
export function sideExitCode(s: SideTally): RunExitCode {
  if (s.unreachable === undefined) return exitCodeOfTally(s);
  return count(s.findings, 'violation') + count(s.findings, 'server-error') > 0 ? exitCodeOfTally(s) : EXIT.unreachable;
}

/**
 * A comparison's exit code, from its sides: a side that broke the spec, then one that did not answer,
 * then one not vouched for; `loadBroken` (a load check failed on some side, `--load`) fails a comparison that would pass.
 */
export function comparisonExitCode(c: { readonly sides: readonly SideTally[] }, loadBroken = false): RunExitCode {
  const codes = c.sides.map(sideExitCode);
  if (codes.includes(EXIT.failed) || (loadBroken && codes.every((x) => x === EXIT.passed))) return EXIT.failed;
  if (codes.includes(EXIT.unreachable)) return EXIT.unreachable;
  return codes.includes(EXIT.inconclusive) ? EXIT.inconclusive : EXIT.passed;
}

/** The kill matrix's exit code: 1 while a fault survived, a clean run found something, or it was interrupted. */
export function mutantsExitCode(r: { readonly survivors: readonly string[]; readonly falseFindings: number; readonly interrupted: boolean }): 0 | 1 {
  return r.survivors.length === 0 && r.falseFindings === 0 && !r.interrupted ? EXIT.passed : EXIT.failed;
}

/** What a load run's exit code reads (src/load/result.ts `LoadRunResult`): why it failed, a baseline's relative thresholds, a capacity search. */
export interface LoadVerdictFacts {
  /** Set when an abort threshold, a broken threshold or a broken check failed the run. */
  readonly failedBecause?: string;
  readonly baseline?: { readonly thresholds: readonly { readonly passed: boolean }[] };
  readonly capacity?: { readonly status: string; readonly capacity?: number };
}

/** A merge of load shards (`pouchproof load merge`): the run's code, else 2 when shards are missing (the whole was not measured: no pass, and not the target's fault either). */
export function mergedLoadExitCode(r: LoadVerdictFacts & { readonly merged?: { readonly missing: readonly number[] } }): 0 | 1 | 2 {
  const code = loadExitCode(r);
  return code === EXIT.passed && (r.merged?.missing.length ?? 0) > 0 ? EXIT.inconclusive : code;
}

/** A load run's exit code: 1 when it failed, a relative threshold against its baseline broke, or a capacity search found none within its objective (and was not interrupted). */
export function loadExitCode(r: LoadVerdictFacts): 0 | 1 {
  const noCapacity = r.capacity !== undefined && r.capacity.capacity === undefined && r.capacity.status !== 'interrupted';
  const regressed = r.baseline?.thresholds.some((t) => !t.passed) ?? false;
  return r.failedBecause || regressed || noCapacity ? EXIT.failed : EXIT.passed;
}

/** The one line that says what a run could not vouch for, or undefined when it vouched for everything it ran. */
export function couldNotVouch(results: readonly PropertyResult[]): string | undefined {
  const inc = results.filter((r) => r.status === 'inconclusive');
  const [first] = inc;
  if (first === undefined) return undefined;
  const names = inc.slice(0, 4).map((r) => r.id).join(', ') + (inc.length > 4 ? ` and ${inc.length - 4} more` : '');
  return `could not vouch for ${inc.length} propert${inc.length === 1 ? 'y' : 'ies'} (${names}): ${first.id}: ${first.inconclusive ?? 'below its evidence floor'}`;
}

/** Why a run that checked nothing exits 2, or undefined. */
export function nothingChecked(results: readonly PropertyResult[]): string | undefined {
  return results.length > 0 && results.every((r) => r.status === 'skipped') ? 'nothing was checked: every property was skipped (see the reasons above; a profile with credentials is needed)' : undefined;
}
