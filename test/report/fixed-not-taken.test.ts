/**
 * A reading the user fixed that discovery saw the target not take is said at the end of the run,
 * in the console and in summary.md: the properties judge the run under the fixed reading, so their
 * findings never count it (a stricter reading told, unknown members ignored by the target).
 */
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/check/run/index.ts';
import { ConsoleView } from '../../src/report/console.ts';
import { buildReport } from '../../src/report/report-json.ts';
import { fixedNotTaken, toSummaryMarkdown } from '../../src/report/summary-md.ts';

const run: RunResult = {
  runId: '20260101-000000-00000001', seed: 1, target: 'http://127.0.0.1:9', startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1000,
  requests: 2, interrupted: false,
  results: [{ id: 'shapes.valid-accepted', section: '4', status: 'passed', runs: 2, requests: 2, durationMs: 10, findings: [] }],
};
const readings = (mismatches: unknown[]) => ({ readings: {}, fixed: { 'unknown-fields-ignored': 'rejected' }, mismatches, requests: 30, durationMs: 100, table: [] });
const meta = (r: unknown) => ({ version: '0.0.0', targetName: 't', embedded: false, runs: 2, assumptions: {}, secrets: [], readings: r });
const LINE = 'unknown-fields-ignored: fixed to rejected, the target was seen to take ignored';

function consoleOf(r: unknown): string {
  let out = '';
  new ConsoleView({ out: { write: (s: string) => (out += s) }, tty: false, color: false }).summary(buildReport(run, meta(r)));
  return out;
}

describe('fixed readings the target was seen not to take', () => {
  it('are listed in the console, counted in its headline, and listed in summary.md', () => {
    const r = readings([{ assumption: 'unknown-fields-ignored', fixed: 'rejected', observed: 'ignored' }]);
    const out = consoleOf(r);
    expect(out).toContain(`Fixed readings the target was seen not to take (not failures; the run was judged under the fixed ones):\n  ${LINE}`);
    expect(out).toMatch(/0 assumption mismatch\(es\), 1 fixed reading\(s\) not taken;/);
    expect(toSummaryMarkdown(buildReport(run, meta(r)))).toContain(`**Fixed readings the target was seen not to take**`);
    expect(toSummaryMarkdown(buildReport(run, meta(r)))).toContain(`- ${LINE}`);
  });

  it('say nothing when every fixed reading was taken, or no discovery ran, or its record is malformed', () => {
    for (const r of [readings([]), undefined, { mismatches: 'x' }]) {
      expect(fixedNotTaken(r)).toEqual([]);
      const out = consoleOf(r);
      expect(out).not.toContain('Fixed readings');
      expect(out).not.toContain('not taken');
    }
  });
});
