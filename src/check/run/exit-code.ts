/**
 * The exit code of a conformance run, decided here once for the CLI, the library and the vitest
 * entry (which all read `RunResult.exitCode`):
 *
 * - 1: the target broke the spec: a violation, a server error or a crash (or a finding of a kind
 *   `--fail-on` names), or the target stopped answering;
 * - 2: nothing wrong was shown, but something could not be vouched for: a property pouchproof could
 *   not run (`error`), a property below its evidence floor (`inconclusive`), or a run in which
 *   every property was skipped (nothing was checked);
 * - 0: every property reported as passed met its floor, and nothing failed. Skips alone (a
 *   capability the profile does not give, a property that does not apply under the readings) do
 *   not make a run exit 2 unless everything was skipped.
 *
 * 130 (interrupted) is the process's own business: the report of an interrupted run says what it did.
 */
import type { FailOnKind, PropertyResult } from './result.ts';
import { isFailing } from './result.ts';

export function exitCodeOf(results: readonly PropertyResult[], o: { readonly unreachable?: boolean; readonly failOn?: readonly FailOnKind[] }): 0 | 1 | 2 {
  const failOn: readonly string[] = o.failOn ?? [];
  const failing = results.some((r) => r.findings.some((f) => isFailing(f.kind) || failOn.includes(f.kind)));
  if (failing || o.unreachable) return 1;
  if (results.some((r) => r.status === 'error' || r.status === 'inconclusive')) return 2;
  if (results.length > 0 && results.every((r) => r.status === 'skipped')) return 2;
  return 0;
}

/** The one line that says what a run could not vouch for, or undefined when it vouched for everything it ran. */
export function couldNotVouch(results: readonly PropertyResult[]): string | undefined {
  const inc = results.filter((r) => r.status === 'inconclusive');
  if (inc.length === 0) return undefined;
  const names = inc.slice(0, 4).map((r) => r.id).join(', ') + (inc.length > 4 ? ` and ${inc.length - 4} more` : '');
  return `could not vouch for ${inc.length} propert${inc.length === 1 ? 'y' : 'ies'} (${names}): ${inc[0]!.id}: ${inc[0]!.inconclusive ?? 'below its evidence floor'}`;
}

/** Why a run that checked nothing exits 2, or undefined. */
export function nothingChecked(results: readonly PropertyResult[]): string | undefined {
  return results.length > 0 && results.every((r) => r.status === 'skipped') ? 'nothing was checked: every property was skipped (see the reasons above; a profile with credentials is needed)' : undefined;
}
