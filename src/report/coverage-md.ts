/**
 * The coverage table in words: one line for the console and summary.md, and `coverage.md` with a row
 * per request constraint of the inventory (was its valid edge seen accepted, its violation refused).
 */
import { cell } from './markdown.ts';
import type { CoverageReport, Report } from './report-json.ts';

type Side = CoverageReport['rows'][number]['accept'];

const MARK: Readonly<Record<Side['status'], string>> = { observed: '✅ observed', failed: '❌ failed', partial: '◐ partial', unobserved: '— not observed', none: 'n/a' };

/** `296/296 constraints seen accepted, 296/296 seen refused (1884 cases)`, and what failed. */
export function coverageHeadline(c: CoverageReport | undefined): string | undefined {
  if (!c) return undefined;
  const t = c.totals;
  const failed = t.accept.failed + t.reject.failed;
  const accept = t.accept.cases ? `${t.accept.observed}/${t.accept.withVariants} constraints seen accepted at their edges` : 'edges not exercised (boundaries.limits-accepted did not run its coverage)';
  const reject = t.reject.cases ? `${t.reject.observed}/${t.reject.withVariants} seen refusing every violation with its twin served` : 'violations not exercised (rejection.violations-rejected did not run its coverage)';
  return `${accept}, ${reject} (${t.cases} coverage cases)${failed ? `; ${failed} broken` : ''}`;
}

function side(s: Side): string {
  if (s.status === 'none') return MARK.none;
  const extra = [s.failed ? `${s.failed} failed` : '', s.assumption ? `${s.assumption} other reading` : '', s.unjudged ? `${s.unjudged} not judged` : ''].filter(Boolean).join(', ');
  return `${MARK[s.status]} ${s.observed}/${s.variants}${extra ? ` (${extra})` : ''}`;
}

/** Failed constraints first, then those not observed, then partly observed ones, then the rest (stable within each). */
const RANK: Readonly<Record<Side['status'], number>> = { failed: 0, unobserved: 1, partial: 2, observed: 3, none: 3 };

/** `coverage.md`: the whole table, failed and not fully observed constraints first. */
export function toCoverageMarkdown(report: Report): string | undefined {
  const c = report.coverage;
  if (!c) return undefined;
  const out: string[] = ['## Requirement coverage', ''];
  out.push(`${coverageHeadline(c)}.`, '');
  out.push(
    'Each request constraint of the inventory (`pouchproof inventory`), with its boundary-valid variants (accept) and its one-constraint violations (reject), each sent once in the coverage phase of every run whatever the seed. ' +
      'Violations go as minimal pairs: each with its twin, the same request with that one constraint met; a refusal counts as observed only when its twin was served (a refused twin leaves the pair not judged, or is judged itself when its value is allowed). ' +
      '*partial*: some variants were not judged (a constraint not in force under the run\'s readings, a property skipped or cut by its time bound) or the target follows another reading (an assumption finding).',
    '',
  );
  const rank = (r: CoverageReport['rows'][number]) => Math.min(RANK[r.accept.status], RANK[r.reject.status]);
  const rows = [...c.rows].sort((a, b) => rank(a) - rank(b));
  out.push('| constraint | § | accept | reject |', '|---|---|---|---|');
  for (const r of rows) out.push(`| \`${cell(r.constraint)}\` | ${r.section} | ${side(r.accept)} | ${side(r.reject)} |`);
  return `${out.join('\n')}\n`;
}
