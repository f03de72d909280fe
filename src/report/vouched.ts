/**
 * What a run vouched for, said the same way in every report: per property, how many cases it judged
 * against its evidence floor; for the run, which properties it could not vouch for and why, what
 * the profile could add, and what throttling cost. Rendering only: the floor itself is the runner's.
 */
import type { PropertyReport, Report } from './report-json.ts';

type Phase = NonNullable<PropertyReport['evidence']>['random'];

const applicable = (p: Phase): number => p.planned - p.notApplicable;

/** "judged 25/25 random, 1134/1134 coverage" (or undefined for a property without evidence: skipped, errored). */
export function evidenceCell(p: Pick<PropertyReport, 'evidence'>): string | undefined {
  const e = p.evidence;
  if (!e) return undefined;
  const part = (name: string, x: Phase) => (x.planned === 0 ? undefined : `${x.judged}/${applicable(x)} ${name}`);
  const parts = [part('random', e.random), part('coverage', e.coverage)].filter(Boolean);
  return parts.length ? `judged ${parts.join(', ')}` : undefined;
}

/** The one line on what the run vouched for: every passed property met its floor; which could not be vouched for. */
export function vouchedLine(report: Report): string {
  const passed = report.properties.filter((p) => p.status === 'passed').map((p) => p.id);
  const not = report.properties.filter((p) => p.status === 'inconclusive').map((p) => p.id);
  const shown = (ids: readonly string[]) => ids.slice(0, 6).join(', ') + (ids.length > 6 ? ` and ${ids.length - 6} more` : '');
  const vouched = `vouched for ${passed.length} propert${passed.length === 1 ? 'y' : 'ies'} (each judged at least its evidence floor)`;
  return not.length ? `${vouched}; could not vouch for ${not.length}: ${shown(not)}` : vouched;
}

/** Findings that neither the spec's words nor an identified reading decide, with their evidence. */
export function unknownFindings(report: Report): Report['properties'][number]['findings'] {
  return report.properties.flatMap((p) => p.findings.filter((f) => f.kind === 'unknown'));
}

/** "the target throttled 312 requests; 41.2 s waited; the run settled at 96.5 requests/s". */
export function throttlingLine(report: Pick<Report, 'throttling'>): string | undefined {
  const t = report.throttling;
  if (!t) return undefined;
  const rate = t.limitPerSecond !== undefined ? `; the run settled at ${t.limitPerSecond} requests/s` : '';
  if (t.throttled === 0) return `rate limited to ${t.limitPerSecond ?? '?'} requests/s; the target throttled nothing`;
  return `the target throttled ${t.throttled} request${t.throttled === 1 ? '' : 's'} (waited out and sent again); ${(t.waitedMs / 1000).toFixed(1)} s waited${rate}`;
}
