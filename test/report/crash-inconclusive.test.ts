/**
 * The `crash` finding and the `inconclusive` status in every report: report.json (schema-valid,
 * counted in totals), junit.xml (a crash is a <failure>, inconclusive an <error>, never a pass),
 * summary.md and the console (the one-line reason, what the budget did not cover).
 */
import { describe, expect, it } from 'vitest';
import type { RecordedExchange, RunResult } from '../../src/check/run/index.ts';
import { ConsoleView } from '../../src/report/console.ts';
import { toJunit } from '../../src/report/junit.ts';
import { buildReport, ReportSchema } from '../../src/report/report-json.ts';
import { toSummaryMarkdown } from '../../src/report/summary-md.ts';

const INC = "none of its 3 cases completed: connection closed by the target during the response body";
const LINE = `2 properties completed no case (usage.idempotent, usage.monotone): ${INC}`;

/** The request the target went down after, as the finding recorded it (its token masked then). */
const CULPRIT: RecordedExchange = {
  id: 2, endpoint: 'changeUnlock', startedAt: '2026-01-01T00:00:00.500Z', masked: true,
  request: { method: 'PUT', url: 'http://127.0.0.1:9/v1/account/unlock', headers: { authorization: '***' }, body: { text: '{"statements": [', size: 16 } },
  verdict: 'transport-error', reason: 'connection closed by the target before a response', failure: 'closed', timings: { totalMs: 3 },
};

function run(withCrash: boolean): RunResult {
  return {
    runId: '20260101-000000-00000001', seed: 1, target: 'http://127.0.0.1:9', startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1000,
    requests: 12, interrupted: false, inconclusive: LINE,
    budget: { maxDurationMs: 60_000, cut: ['shapes.valid-accepted'], notRun: ['usage.monotone'] },
    results: [
      { id: 'usage.idempotent', section: '4.3', status: 'inconclusive', runs: 3, requests: 3, durationMs: 10, inconclusive: INC,
        findings: [{ kind: 'transport', property: 'usage.idempotent', section: '4.3', message: 'connection closed by the target during the response body', occurrences: 3 }] },
      { id: 'shapes.valid-accepted', section: '4', status: 'passed', runs: 2, requests: 2, durationMs: 10, findings: [], timeBound: { planned: 25, budgetShareMs: 2000 } },
      { id: 'usage.monotone', section: '4.3', status: 'inconclusive', runs: 0, requests: 0, durationMs: 0, findings: [], inconclusive: "not run: the run's time budget (1 min) was spent" },
      ...(withCrash ? [{ id: 'robustness.malformed-rejected', section: '2', status: 'failed' as const, runs: 1, requests: 2, durationMs: 10,
        findings: [{ kind: 'crash' as const, property: 'robustness.malformed-rejected', section: '2', replay: 'abc',
          message: 'the target went down after PUT /v1/account/unlock (connection closed by the target before a response); a fresh connection was refused too (connection refused), so the run stops here',
          exchangeIds: [2], exchanges: [CULPRIT] }] }] : []),
    ],
  };
}

const meta = { version: '0.0.0', targetName: 't', embedded: false, runs: 25, assumptions: {}, secrets: [] };

describe('crash and inconclusive in the reports', () => {
  it('report.json: schema-valid, counted, the reason and the budget kept', () => {
    const r = ReportSchema.parse(buildReport(run(true), meta));
    expect(r.totals).toMatchObject({ inconclusive: 2, passed: 1, failed: 1, findings: { crash: 1, transport: 1 } });
    expect(r.inconclusive).toBe(LINE);
    expect(r.budget).toEqual({ maxDurationMs: 60_000, cut: ['shapes.valid-accepted'], notRun: ['usage.monotone'] });
    expect(r.properties[0]).toMatchObject({ status: 'inconclusive', inconclusive: INC });
    expect(r.properties[1]!.timeBound).toEqual({ planned: 25, budgetShareMs: 2000 });
  });

  it('junit.xml: a crash is a failure, an inconclusive property an error', () => {
    const xml = toJunit(buildReport(run(true), meta));
    expect(xml).toMatch(/<testsuites [^>]*failures="1" errors="2"/);
    expect(xml).toContain('<failure type="crash" message="the target went down after PUT /v1/account/unlock');
    expect(xml).toContain(`<error type="inconclusive" message="inconclusive: could not vouch for it: ${INC}"`);
  });

  it('summary.md and the console: the verdict, the one-line reason and what was not covered', () => {
    const inc = buildReport(run(false), meta);
    const md = toSummaryMarkdown(inc);
    expect(md).toMatch(/^## pouchproof: could not vouch for 2 properties$/m);
    expect(md).toContain('**vouched for 1 property (each judged at least its evidence floor); could not vouch for 2: usage.idempotent, usage.monotone**');
    expect(md).toContain(`**Inconclusive** (the run does not pass): ${LINE}`);
    expect(md).toContain('**Not covered** within the time budget of 60 s: cut short `shapes.valid-accepted`; not run `usage.monotone`');
    expect(md).toContain('❔ inconclusive');
    let out = '';
    new ConsoleView({ out: { write: (s: string) => (out += s) }, tty: false, color: false }).summary(inc);
    expect(out).toContain(`inconclusive: ${LINE}\n`);
    expect(out).toContain('time budget 60 s (--max-duration): not covered: cut short shapes.valid-accepted; not run usage.monotone');
    expect(out).toMatch(/could not vouch for 2 properties — 3 properties: 1 passed, 0 failed, 0 skipped, 2 inconclusive/);
    expect(out).toContain('vouched for 1 property (each judged at least its evidence floor); could not vouch for 2: usage.idempotent, usage.monotone');
    expect(out).not.toContain('no violations');

    const crashed = buildReport(run(true), meta);
    expect(toSummaryMarkdown(crashed)).toMatch(/^## pouchproof: 0 violation\(s\), 0 server error\(s\), the target went down \(crash\)$/m);
    let out2 = '';
    new ConsoleView({ out: { write: (s: string) => (out2 += s) }, tty: false, color: false }).summary(crashed);
    expect(out2).toMatch(/^CRASH robustness\.malformed-rejected \(§2\)$/m);
    expect(out2).toContain("  curl -sS -i --http1.1 -X 'PUT' 'http://127.0.0.1:9/v1/account/unlock'");
    expect(out2).toContain("-H 'authorization: ***'");
  });

  it('a console line per property says why it is inconclusive', () => {
    const v = new ConsoleView({ out: { write: () => true }, tty: false, color: false });
    expect(v.resultLine(run(false).results[0]!)).toMatch(/^INC {2}usage\.idempotent .* inconclusive: none of its 3 cases completed/);
    expect(v.resultLine(run(false).results[1]!)).toMatch(/its share of the time budget reached: 2 of 25 cases$/);
  });
});
