/**
 * What pouchproof reads of a response is bounded (profile `limits.responseBytes`, by default the
 * largest answer the spec allows plus allowances): against a server that answers one endless body,
 * `pouchproof run` reads each answer up to the bound, says so, and its peak memory stays small.
 * (It once reached 4.2 GB: every finding's recorded excerpt kept its whole 4 MiB body alive.)
 * The peak is the child's own, process.resourceUsage().maxRSS, written on exit by a preloaded script.
 * Slow tier: it runs pouchproof twice as a process. `npm run bench memory` measures the whole suite's peak.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import { ReportSchema } from '../../src/report/report-json.ts';
import { RESPONSE_BODY_BOUND_BYTES } from '../../src/spec/index.ts';
import { always500, endlessBody, type Local } from './misbehaving-servers.ts';
import { pouchproof, type Done } from './spawn-cli.ts';

/**
 * The bound is the test's own measurement: the same run against a target that answers every request
 * at once with a small 500 (every case a finding, nothing large to read), times this. What the
 * endless body may add is what the read bound lets in (a quarter of a MiB per response in flight);
 * before the fix the run passed 1 GB within a minute, many times the baseline (~300 MB from source).
 */
const OVER_BASELINE = 1.5;

let dir: string;
let ref: RunningReference;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pouchproof-memory-'));
  ref = await startReference();
});
afterAll(async () => {
  await ref.close();
  await rm(dir, { recursive: true, force: true });
});

/** `pouchproof run` against `target` (seed 5, at most 60 s), with its reports in `reports` and its peak RSS in bytes. */
async function measuredRun(target: Local, reports: string): Promise<{ readonly r: Done; readonly peak: number }> {
  const profile = join(dir, `${reports}.json`);
  await writeFile(profile, JSON.stringify({ ...(ref.profile as object), name: reports, baseUrl: target.url }), { mode: 0o600 });
  const maxRss = join(dir, `${reports}.maxrss`);
  const r = await pouchproof(['run', '--profile', profile, '--seed', '5', '--max-duration', '60s', '--report-dir', join(dir, reports)], 120_000, { POUCHPROOF_MAXRSS_FILE: maxRss }, ['--require', join(import.meta.dirname, 'report-maxrss.cjs')]);
  return { r, peak: Number(await readFile(maxRss, 'utf8')) * 1024 };
}

describe('a target that answers one endless body', () => {
  it('is read up to the bound, reported as such, and the run stays as small as one whose answers are small', async () => {
    const small = await always500();
    const baseline = await measuredRun(small, 'baseline').finally(() => small.close());
    expect(baseline.peak).toBeGreaterThan(0);
    const endless = await endlessBody();
    try {
      const reports = join(dir, 'reports');
      const { r, peak } = await measuredRun(endless, 'reports');
      const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;
      expect(peak, `peak RSS ${mb(peak)}, against ${mb(baseline.peak)} when every answer is a small 500`).toBeLessThan(baseline.peak * OVER_BASELINE);
      const why = `response body over ${RESPONSE_BODY_BOUND_BYTES} bytes (HTTP 200): more than any answer the spec allows; the rest was not read (limits.responseBytes in the profile raises the bound)`;
      // The target stopped answering usably: exit 3, not a violation.
      expect(r.code, r.stdout + r.stderr).toBe(3);
      expect(r.stdout).toContain(why);
      const report = ReportSchema.parse(JSON.parse(await readFile(join(reports, 'latest', 'report.json'), 'utf8')));
      expect(report.unreachable).toContain(why);
      const findings = report.properties.flatMap((p) => p.findings);
      expect(findings.some((f) => f.kind === 'transport' && f.message.includes(why))).toBe(true);
      // Nothing was judged from a body that was not read whole.
      expect(findings.filter((f) => f.kind === 'violation' || f.kind === 'server-error')).toEqual([]);
      // The recorded excerpt of a cut body is small.
      const bodies = findings.flatMap((f) => f.exchanges ?? []).map((e) => e.response?.body.text.length ?? 0);
      expect(bodies.length).toBeGreaterThan(0);
      expect(Math.max(...bodies)).toBeLessThanOrEqual(16 * 1024);
    } finally {
      await endless.close();
    }
  }, 300_000);
});
