/**
 * One judgement failing in many properties is named once, above the findings, in the console and in
 * summary.md (src/report/shared-causes.ts); every property's finding is still shown.
 */
import { describe, expect, it } from 'vitest';
import type { Finding, PropertyResult, RunResult } from '../../src/check/run/index.ts';
import { ConsoleView } from '../../src/report/console.ts';
import { buildReport } from '../../src/report/report-json.ts';
import { toReportHtml } from '../../src/report/report-html.ts';
import { sharedCauses } from '../../src/report/shared-causes.ts';
import { toSummaryMarkdown } from '../../src/report/summary-md.ts';
import { toJunit } from '../../src/report/junit.ts';

const violation = (property: string, judgement: string): Finding => ({ kind: 'violation', property, section: '4.2', message: `${property} saw it`, judgement });
const failed = (id: string, ...judgements: string[]): PropertyResult => ({
  id, section: '4.2', status: 'failed', runs: 1, requests: 3, durationMs: 10, findings: judgements.map((j) => violation(id, j)),
});
const IDS = ['commits.seq-increasing', 'commits.batch-chains', 'commits.stale-base-rejected', 'races.one-winner', 'races.linearizable', 'shapes.valid-accepted'];

function runOf(results: PropertyResult[]): RunResult {
  return { runId: '20260101-000000-00000001', seed: 1, target: 'http://127.0.0.1:9', startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1000, requests: 18, interrupted: false, results };
}
const meta = { version: '0.0.0', targetName: 't', embedded: false, runs: 2, assumptions: {}, secrets: [] };

function consoleOf(run: RunResult): string {
  let out = '';
  new ConsoleView({ out: { write: (s: string) => (out += s) }, tty: false, color: false }).summary(buildReport(run, meta));
  return out;
}

describe('a judgement that failed in many properties', () => {
  it('is named once with the properties it failed in, in the console, summary.md and report.html, above every finding', () => {
    const run = runOf([...IDS.map((id) => failed(id, 'shared.success-envelope', 'shared.success-envelope')), failed('commits.atomic-batch', 'commits.all-or-nothing')]);
    const line = 'shared.success-envelope failed in 6 properties (commits.seq-increasing, commits.batch-chains, commits.stale-base-rejected, races.one-winner and 2 more): most likely one defect, seen by each; their findings follow';
    const out = consoleOf(run);
    expect(out).toContain(line);
    expect(out.indexOf(line)).toBeLessThan(out.indexOf('VIOLATION'));
    expect(out.match(/VIOLATION/g)).toHaveLength(13);
    const md = toSummaryMarkdown(buildReport(run, meta));
    expect(md).toContain('- `shared.success-envelope` failed in 6 properties (`commits.seq-increasing`, `commits.batch-chains`');
    expect(md).not.toContain('`commits.all-or-nothing` failed in');
    const html = toReportHtml(buildReport(run, meta));
    expect(html).toContain(`<p class="bad">${line}</p>`);
    expect(html.indexOf(line)).toBeLessThan(html.indexOf('<article class="finding'));
    // junit.xml: the suite's system-out names it, and each of its failures says it is one of many.
    const xml = toJunit(buildReport(run, meta));
    expect(xml).toMatch(new RegExp(`<system-out>${line.replace(/[()]/g, '\\$&')}</system-out>\\n  </testsuite>`));
    expect(xml.match(/\[shared cause\] shared\.success-envelope failed in 6 properties/g)).toHaveLength(12);
    expect(xml).not.toContain('[shared cause] commits.all-or-nothing');
  });

  it('needs three properties: two, or one property failing it many times, read well enough one by one', () => {
    expect(sharedCauses([failed('a', 'j', 'j', 'j'), failed('b', 'j')])).toEqual([]);
    expect(sharedCauses([failed('a', 'j'), failed('b', 'j'), failed('c', 'j'), failed('d', 'k')])).toEqual([{ judgement: 'j', properties: ['a', 'b', 'c'] }]);
    const quiet = consoleOf(runOf([failed('a', 'j'), failed('b', 'j')]));
    expect(quiet).not.toContain('failed in');
    expect(toJunit(buildReport(runOf([failed('a', 'j'), failed('b', 'j')]), meta))).not.toMatch(/shared cause|failed in/);
  });
});
