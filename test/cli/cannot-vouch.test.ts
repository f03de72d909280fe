/**
 * `pouchproof run` against targets it cannot vouch for: a run never says "passed" for what it did
 * not check. A target that completes no response (cut off mid-body, or stalled after its headers)
 * ends the run early with one finding; a correct but slow one is covered as far as `--max-duration`
 * allows, and what was not covered is listed and keeps the run from exiting 0. Every run here is
 * bounded by small per-request timeouts and a small budget.
 */
import { DEFAULT_CASE_CONCURRENCY } from '../../src/target/profile.ts';
import { DEFAULT_PROPERTIES_AT_ONCE } from '../../src/session/index.ts';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportSchema, type Report } from '../../src/report/report-json.ts';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import { headersThenStall, mostlySlowProxy, resetMidBody, slowProxy, type Local } from './misbehaving-servers.ts';
import { pouchproof } from './spawn-cli.ts';
import { besideTimer } from '../timing.ts';

let dir: string;
let ref: RunningReference;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pouchproof-vouch-'));
  ref = await startReference();
});
afterAll(async () => {
  await ref.close();
  await rm(dir, { recursive: true, force: true });
});

/** The reference's credentials, pointed at `url`: every property has what it needs, so none is skipped. */
async function profileFor(url: string, name: string): Promise<string> {
  const file = join(dir, `${name}-profile.json`);
  await writeFile(file, JSON.stringify({ ...ref.profile, name, baseUrl: url }), { mode: 0o600 });
  return file;
}

async function runAgainst(local: Local, name: string, extra: string[]): Promise<{ code: number | null; stdout: string; report: Report }> {
  try {
    const reports = join(dir, `${name}-reports`);
    const r = await pouchproof(['run', '--profile', await profileFor(local.url, name), '--seed', '5', '--report-dir', reports, ...extra], 120_000);
    const report = ReportSchema.parse(JSON.parse(await readFile(join(reports, 'latest', 'report.json'), 'utf8')));
    return { code: r.code, stdout: r.stdout, report };
  } finally {
    await local.close();
  }
}

describe('a run that cannot vouch for the target never passes', () => {
  it('a target that cuts every response off mid-body: the run ends early with one finding, nothing passed', async () => {
    const { code, stdout, report } = await runAgainst(await resetMidBody(), 'reset', ['--assume', 'defaults', '--per-request-ms', '2000', '--max-duration', '60s']);
    expect(code).toBe(3);
    expect(report.exitCode).toBe(3);
    expect(report.totals.passed).toBe(0);
    // Cases run side by side: the few already sent when the eighth silence is counted finish too.
    expect(report.unreachable).toMatch(/^the target stopped answering: \d+ requests in a row got no complete response \(last: connection closed by the target during the response body\)/);
    const findings = report.properties.flatMap((p) => p.findings);
    expect(findings.filter((f) => f.kind === 'transport' && /the run stops here/.test(f.message))).toHaveLength(1);
    expect(findings.some((f) => f.kind === 'violation' || f.kind === 'crash')).toBe(false);
    // The properties in flight when it met it (side by side, up to --properties-at-once of them) completed
    // no case: inconclusive, never passed; the rest were not run.
    const inFlight = report.properties.filter((p) => p.status === 'inconclusive');
    expect(inFlight.length).toBeGreaterThanOrEqual(1);
    expect(inFlight.length).toBeLessThanOrEqual(DEFAULT_PROPERTIES_AT_ONCE);
    expect(report.properties.filter((p) => p.status !== 'inconclusive').every((p) => p.status === 'skipped')).toBe(true);
    // The silence ended it, not the time budget.
    expect(report.budget).toEqual({ maxDurationMs: 60_000, cut: [], notRun: [] });
    expect(stdout).toContain('the target stopped answering');
    expect(stdout).not.toMatch(/no violations/);
  });

  it('a target that sends headers and then stalls every body: ended after a few timeouts, not a bound per property', async () => {
    const local = await headersThenStall();
    const { code, stdout, report } = await runAgainst(local, 'stall', ['--assume', 'defaults', '--per-request-ms', '300', '--max-duration', '60s']);
    expect(code).toBe(3);
    expect(report.unreachable).toMatch(/got no complete response \(last: the response body did not finish within 300 ms\)/);
    // Eight silent in a row end it; the cases in flight then (at most the run's concurrency, whatever the properties side by side) finish.
    expect(report.totals.requests).toBeLessThanOrEqual(8 + DEFAULT_CASE_CONCURRENCY);
    expect(report.totals.passed).toBe(0);
    expect(report.properties.flatMap((p) => p.findings).filter((f) => f.kind === 'transport' && /the run stops here/.test(f.message))).toHaveLength(1);
    expect(stdout).toContain('target unreachable');
  });

  it('a correct but slow target: --max-duration is shared out, what it could not cover is listed, and the run does not exit 0', async () => {
    const budgetMs = 12_000;
    const { value: { code, stdout, report }, timerMs } = await besideTimer(budgetMs, async () => runAgainst(await slowProxy(ref.url), 'slow', ['--assume', 'defaults', '--per-request-ms', '5000', '--max-duration', '12s']));
    expect(code).toBe(2);
    expect(report.options.maxDurationMs).toBe(budgetMs);
    expect(report.budget).toBeDefined();
    const inconclusive = report.properties.filter((p) => p.status === 'inconclusive');
    expect(inconclusive.length).toBeGreaterThan(0);
    for (const p of inconclusive) expect(p.inconclusive).toMatch(/share of the run's time budget|time budget .* was spent/);
    expect(report.budget!.cut.length + report.budget!.notRun.length).toBeGreaterThan(0);
    expect(report.inconclusive).toMatch(/^could not vouch for \d+ propert(y|ies) \(/);
    // One line says why; another what was not covered; no violation came of the slowness.
    expect(stdout).toMatch(/^inconclusive: could not vouch for \d+ propert(y|ies)/m);
    expect(stdout).toMatch(/^time budget 12 s \(--max-duration\): not covered:/m);
    expect(report.properties.flatMap((p) => p.findings).filter((f) => f.kind === 'violation' || f.kind === 'server-error' || f.kind === 'crash')).toEqual([]);
    // Bounded: the budget, plus start-up and the in-flight request of the last property; within a few
    // times what a timer of the budget, set beside the run, took on this machine just then.
    expect(report.durationMs).toBeLessThan(5 * timerMs);
  });

  it('a correct target that answers one request in ten at once and the rest after 3 s, against a 500 ms bound: the run ends early with one line and exit 3 (stopped answering at this bound)', async () => {
    const { code, stdout, report } = await runAgainst(await mostlySlowProxy(ref.url, 10, 3000), 'too-slow', ['--assume', 'defaults', '--per-request-ms', '500', '--max-duration', '10m']);
    expect(code, stdout).toBe(3);
    expect(report.exitCode).toBe(3);
    expect(report.inconclusive).toMatch(/^the target timed out on \d+ of the last 40 requests \(each given 500 ms\): too slow to judge at this bound/);
    expect(stdout).toMatch(/^inconclusive: the target timed out on \d+ of the last 40 requests/m);
    expect(report.properties.flatMap((p) => p.findings).some((f) => f.kind === 'transport' && /the run stops here \(raise --per-request-ms or timeouts\.requestMs to judge a slower target\)/.test(f.message))).toBe(true);
    expect(report.properties.flatMap((p) => p.findings).filter((f) => f.kind === 'violation' || f.kind === 'server-error' || f.kind === 'crash')).toEqual([]);
    // Ended by the timeouts (the line above), not by the ten minutes the budget allowed: no property
    // says the budget was spent. A state of the report, not a time bound.
    expect(report.properties.filter((p) => /time budget/.test(p.inconclusive ?? '')).map((p) => p.id)).toEqual([]);
    expect(report.totals.passed).toBe(0);
  });
});
