/**
 * The coverage table in the reports: typed in report.json (schema-checked), rendered in coverage.md
 * (unobserved and failed constraints first), one line in summary.md and in the console summary.
 */
import { describe, expect, it } from 'vitest';
import { coverageTable, type CoverageObservation } from '../../src/check/run/coverage-table.ts';
import type { RunResult } from '../../src/check/run/index.ts';
import { ConsoleView } from '../../src/report/console.ts';
import { coverageHeadline, toCoverageMarkdown } from '../../src/report/coverage-md.ts';
import { buildReport, ReportSchema } from '../../src/report/report-json.ts';
import { toSummaryMarkdown } from '../../src/report/summary-md.ts';
import { reportFiles } from '../../src/report/write.ts';
import { boundarySpecs, violationSpecs } from '../../src/gen/index.ts';
import { REQUEST_CONSTRAINTS } from '../../src/spec/index.ts';

const BROKEN = 'commitOperations/body/ops[].signature#charset';
const UNSEEN = 'reportUsage/body/rows[].day#calendar';

/** Every variant observed, but one violation of BROKEN accepted and the calendar violations not judged. */
function observations(): CoverageObservation[] {
  const out: CoverageObservation[] = [];
  for (const c of REQUEST_CONSTRAINTS) {
    for (const s of boundarySpecs(c)) out.push({ constraint: c.id, side: 'accept', variant: s.variant, result: 'observed' });
    for (const [i, s] of violationSpecs(c).entries()) {
      out.push({ constraint: c.id, side: 'reject', variant: s.variant, result: c.id === BROKEN && i === 0 ? 'failed' : c.id === UNSEEN ? 'unjudged' : 'observed' });
    }
  }
  return out;
}

function run(withCoverage: boolean): RunResult {
  const obs = observations();
  return {
    runId: '20261123-000000-00000001',
    seed: 1,
    target: 'http://127.0.0.1:1',
    startedAt: new Date(0).toISOString(),
    durationMs: 1000,
    results: [
      { id: 'rejection.violations-rejected', section: '8', status: 'failed', runs: 1, requests: obs.length, durationMs: 900, findings: [], ...(withCoverage ? { coverage: { cases: obs.length, observations: obs } } : {}) },
    ],
    requests: obs.length,
    interrupted: false,
    ...(withCoverage ? { coverage: coverageTable(obs) } : {}),
  };
}

const meta = { version: '0.0.0', targetName: 't', embedded: true, runs: 1, assumptions: {}, secrets: [] };

describe('coverage in the reports', () => {
  it('report.json carries the table, schema-valid, one row per request constraint', () => {
    const report = ReportSchema.parse(JSON.parse(JSON.stringify(buildReport(run(true), meta))));
    const c = report.coverage!;
    expect(c.rows).toHaveLength(REQUEST_CONSTRAINTS.length);
    expect(c.rows.find((r) => r.constraint === BROKEN)!.reject.status).toBe('failed');
    expect(c.rows.find((r) => r.constraint === UNSEEN)!.reject).toMatchObject({ status: 'unobserved', observed: 0 });
    expect(c.totals.reject).toMatchObject({ withVariants: REQUEST_CONSTRAINTS.length, observed: REQUEST_CONSTRAINTS.length - 2, failed: 1 });
    expect(c.totals.reject.cases + c.totals.accept.cases).toBe(c.totals.cases);
    expect(c.totals.accept.observed).toBe(REQUEST_CONSTRAINTS.length);
    expect(report.properties[0]!.coverageCases).toBe(c.totals.cases);
  });

  it('coverage.md lists the constraints not fully observed first; summary.md and the console say it in one line', () => {
    const report = buildReport(run(true), meta);
    const md = toCoverageMarkdown(report)!;
    const rows = md.split('\n').filter((l) => l.startsWith('| `'));
    expect(rows).toHaveLength(REQUEST_CONSTRAINTS.length);
    expect(rows.slice(0, 2).map((l) => /`([^`]+)`/.exec(l)![1])).toEqual([BROKEN, UNSEEN]);
    expect(rows[0]).toContain('❌ failed');
    expect(rows[1]).toContain('— not observed');
    const line = coverageHeadline(report.coverage)!;
    expect(line).toBe(
      `${REQUEST_CONSTRAINTS.length}/${REQUEST_CONSTRAINTS.length} constraints seen accepted at their edges, ${REQUEST_CONSTRAINTS.length - 2}/${REQUEST_CONSTRAINTS.length} seen refusing every violation with its twin served (${report.coverage!.totals.cases} coverage cases); 1 broken`,
    );
    expect(toSummaryMarkdown(report)).toContain(`Coverage: ${line} (table: coverage.md)`);
    expect(Object.keys(reportFiles(report))).toContain('coverage.md');
    let text = '';
    new ConsoleView({ out: { write: (s: string) => (text += s) }, tty: false, color: false }).summary(report);
    expect(text.split('\n').filter((l) => l.startsWith('coverage: '))).toEqual([`coverage: ${line}`]);
  });

  it('says so when one side was not exercised at all', () => {
    const obs = observations().filter((o) => o.side === 'reject');
    const r = run(true);
    const report = buildReport({ ...r, coverage: coverageTable(obs) }, meta);
    expect(coverageHeadline(report.coverage)).toMatch(/^edges not exercised \(boundaries\.limits-accepted did not run its coverage\), \d+\/\d+ seen refusing every violation with its twin served/);
  });

  it('a run without a coverage phase has no table, no coverage.md and no line', () => {
    const report = buildReport(run(false), meta);
    expect(report.coverage).toBeUndefined();
    expect(toCoverageMarkdown(report)).toBeUndefined();
    expect(Object.keys(reportFiles(report))).not.toContain('coverage.md');
    expect(toSummaryMarkdown(report)).not.toContain('Coverage:');
  });
});
