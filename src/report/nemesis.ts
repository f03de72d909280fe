/**
 * The nemesis in words (docs/nemesis.md): the run's line (what was injected, how often, the retries
 * it caused) and one exchange's faults. Rendering only: the faults are the nemesis's, the counts the client's.
 */
import type { LoadRunResult } from '../load/index.ts';
import type { ExchangeReport, Report } from './report-json.ts';

/** The run's nemesis line, or undefined for a run on a clean wire. */
export function nemesisLine(report: Pick<Report, 'nemesis'>): string | undefined {
  const n = report.nemesis;
  if (!n) return undefined;
  const injected = Object.entries(n.injected).filter(([, c]) => c > 0).map(([f, c]) => `${f} ${c}`);
  const share = n.requests ? ` (${((100 * n.retries) / n.requests).toFixed(1)}% of the ${n.requests} requests)` : '';
  const unanswered = n.unanswered ? `; ${n.unanswered} call${n.unanswered === 1 ? '' : 's'} still unanswered after the retry policy` : '';
  return `${n.spec} (seed ${n.seed}): ${injected.length ? injected.join(', ') : 'nothing injected'}; ${n.retries} retr${n.retries === 1 ? 'y' : 'ies'} after no answer${share}${unanswered}`;
}

/** The nemesis's part in one exchange: each fault with the copy it hit, and the copies sent. */
export function nemesisWords(n: NonNullable<ExchangeReport['nemesis']>): string {
  const faults = n.faults.map((f) => `copy ${f.attempt}: ${f.fault} (${f.detail})`);
  return [...faults, `${n.attempts} cop${n.attempts === 1 ? 'y' : 'ies'} sent`].join('; ');
}

/** A load run's nemesis line: what was injected, the share of retries, and where the requests left unanswered went (the errors). */
export function loadNemesisLine(r: Pick<LoadRunResult, 'nemesis' | 'totals'>): string {
  const n = r.nemesis;
  if (!n) return '';
  const injected = Object.entries(n.injected).filter(([, c]) => c > 0).map(([f, c]) => `${f} ${c}`);
  const share = n.requests ? ((100 * n.retries) / n.requests).toFixed(1) : '0.0';
  return `${n.spec} (seed ${n.seed}): ${injected.length ? injected.join(', ') : 'nothing injected'}; ${n.retries} retries after no answer, ${share}% of the ${n.requests} requests on the wire; a request still unanswered after them is an error (errors: ${r.totals.errors}), timed like the rest`;
}
