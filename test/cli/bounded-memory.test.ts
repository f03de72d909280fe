/**
 * What pouchproof reads of a response is bounded (profile `limits.responseBytes`, by default the
 * largest answer the spec allows plus allowances): against a server that answers one endless body,
 * `pouchproof run` reads each answer up to the bound, says so, and its peak memory stays small.
 * (It once reached 4.2 GB: every finding's recorded excerpt kept its whole 4 MiB body alive.)
 * The peak is the child's own, process.resourceUsage().maxRSS, written on exit by a preloaded script.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import { ReportSchema } from '../../src/report/report-json.ts';
import { RESPONSE_BODY_BOUND_BYTES } from '../../src/spec/index.ts';
import { endlessBody } from './misbehaving-servers.ts';
import { pouchproof } from './spawn-cli.ts';

/** Generous: the run measured ~160 MB here; before the fix it passed 1 GB within a minute. */
const PEAK_RSS_BOUND_BYTES = 600 * 1024 * 1024;

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

describe('a target that answers one endless body', () => {
  it('is read up to the bound, reported as such, and the run stays small', async () => {
    const endless = await endlessBody();
    try {
      const profile = join(dir, 'endless.json');
      await writeFile(profile, JSON.stringify({ ...(ref.profile as object), name: 'endless', baseUrl: endless.url }), { mode: 0o600 });
      const reports = join(dir, 'reports');
      const maxRss = join(dir, 'maxrss');
      const r = await pouchproof(['run', '--profile', profile, '--seed', '5', '--max-duration', '60s', '--report-dir', reports], 120_000, { POUCHPROOF_MAXRSS_FILE: maxRss }, ['--require', join(import.meta.dirname, 'report-maxrss.cjs')]);
      const peak = Number(await readFile(maxRss, 'utf8')) * 1024;
      expect(peak, `peak RSS ${(peak / 1024 / 1024).toFixed(0)} MB`).toBeLessThan(PEAK_RSS_BOUND_BYTES);
      expect(peak).toBeGreaterThan(0);
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
  });
});
