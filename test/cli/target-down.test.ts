/**
 * A request that takes the target down is named: `pouchproof serve --fault dies-on-input` really
 * exits on a body that is no JSON, and `pouchproof run` against it reports one `crash` finding naming
 * the request sent last, with its curl line (secrets masked), and exits 1.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportSchema } from '../../src/report/report-json.ts';
import { pouchproof, serveProcess } from './spawn-cli.ts';

let dir: string;
let server: ChildProcess | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pouchproof-down-'));
});
afterAll(async () => {
  if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGTERM');
  await rm(dir, { recursive: true, force: true });
});

/** Secret header values of a profile file (inline ones). */
function secretsOf(profile: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown, key = ''): void => {
    if (typeof v === 'string' && (key === 'authorization' || key === 'd')) out.push(v);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k.toLowerCase());
  };
  walk(profile);
  return out;
}

describe('a target that goes down under a request', () => {
  it('run against `serve --fault dies-on-input`: exit 1, one crash finding naming the request with its masked curl line', async () => {
    const profile = join(dir, 'dies-profile.json');
    const started = await serveProcess(['--fault', 'dies-on-input'], profile);
    server = started.server;
    const exited = started.exited;
    const reports = join(dir, 'reports');
    // One property at a time, so that "after it" in the report is after it in time (side by side, the crash alone: test/check/side-by-side.test.ts).
    const r = await pouchproof(['run', '--profile', profile, '--seed', '3', '--report-dir', reports, '--per-request-ms', '5000', '--max-duration', '90s', '--properties-at-once', '1'], 120_000);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    // The server's process really ended (exit 70, as a crash fault makes it).
    expect(await exited).toBe(70);
    const report = ReportSchema.parse(JSON.parse(await readFile(join(reports, 'latest', 'report.json'), 'utf8')));
    const all = report.properties.flatMap((p) => p.findings);
    const crashes = all.filter((f) => f.kind === 'crash');
    expect(crashes, r.stdout).toHaveLength(1);
    const c = crashes[0]!;
    expect(c.message).toMatch(/^the target went down after (PUT|POST) \/v1\/\S+ \(connection closed by the target before a response\); a fresh connection was refused too \(connection refused\)/);
    const last = c.curl!.at(-1)!;
    expect(last).toMatch(/^# exchange #\d+|curl /);
    expect(c.curl!.join('\n')).toContain("-H 'authorization: ***'");
    expect(c.replay).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(report.totals.findings.crash).toBe(1);
    expect(report.totals.findings.violation).toBe(0);
    // Nothing after it was checked, and the rest say so.
    const rest = report.properties.slice(report.properties.findIndex((p) => p.id === c.property) + 1);
    expect(rest.every((p) => p.status === 'skipped' && /the target went down/.test(p.findings[0]!.message))).toBe(true);
    expect(r.stdout).toMatch(/^CRASH /m);
    // No secret of the profile in any report file.
    const text = (await Promise.all(['report.json', 'summary.md', 'junit.xml'].map((f) => readFile(join(reports, 'latest', f), 'utf8')))).join('\n');
    for (const s of secretsOf(JSON.parse(await readFile(profile, 'utf8')))) expect(text).not.toContain(s);
  });
});
