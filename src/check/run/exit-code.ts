/**
 * The exit codes of pouchproof, one meaning each, decided here once for the CLI, the library and the
 * vitest entry (each computes it from a run's result with `runExitCode`; no result stores it), so a CI job can branch on them:
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
import type { FailOnKind, PropertyResult, RunResult } from './result.ts';
import { isFailing } from './result.ts';

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

export function exitCodeOf(results: readonly PropertyResult[], o: { readonly unreachable?: boolean; readonly tooSlow?: boolean; readonly failOn?: readonly FailOnKind[] }): RunExitCode {
  const failOn: readonly string[] = o.failOn ?? [];
  const failing = results.some((r) => r.findings.some((f) => isFailing(f.kind) || failOn.includes(f.kind)));
  if (failing) return EXIT.failed;
  // A target too slow to judge at the run's bound has, as far as the run can tell, stopped answering.
  if (o.unreachable || o.tooSlow) return EXIT.unreachable;
  if (results.some((r) => r.status === 'error' || r.status === 'inconclusive')) return EXIT.inconclusive;
  if (results.length > 0 && results.every((r) => r.status === 'skipped')) return EXIT.inconclusive;
  return EXIT.passed;
}

/** The exit code of a run, from its result: the one policy every caller applies. */
export function runExitCode(run: Pick<RunResult, 'results' | 'unreachable' | 'tooSlow' | 'notReached' | 'failOn'>): RunExitCode {
  const gone = run.unreachable !== undefined || run.notReached !== undefined;
  return exitCodeOf(run.results, { unreachable: gone, tooSlow: run.tooSlow !== undefined, ...(run.failOn ? { failOn: run.failOn } : {}) });
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
