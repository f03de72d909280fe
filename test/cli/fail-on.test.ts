/**
 * `--fail-on performance`: a cost smell is reported apart and leaves the exit code alone, unless the
 * run is told to fail on it. Against `serve --fault member-names-quadratic`, only the cost probe,
 * which measures latency there (a process of its own): the fault is ~4× the linear model at the limit
 * (`quadratic-blob-ids` is 2.5–3.2× in latency, against the verdict's 2×, and a fresh-clone run missed it
 * once; in-process, where the probe reads the reference's own CPU time, performance.test.ts checks it).
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
let profile: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pouchproof-fail-on-'));
  profile = join(dir, 'profile.json');
  ({ server } = await serveProcess(['--fault', 'member-names-quadratic'], profile));
}, 40_000);

afterAll(async () => {
  if (server && server.exitCode === null) server.kill('SIGTERM');
  await rm(dir, { recursive: true, force: true });
});

describe('--fail-on performance', () => {
  it('a performance finding is reported apart with exit 0, and fails the run with exit 1 under --fail-on performance', async () => {
    // Each run once, its verdict checked once: the probe confirms a suspicion itself before it
    // reports (src/check/model/cost-growth.ts); at 8192 members the quadratic check costs ~120 ms, the linear work ~8 ms.
    const runOnce = async (name: string, extra: string[]) => {
      const dirOf = join(dir, name);
      const r = await pouchproof(['run', '--profile', profile, '--only', 'performance.*', '--seed', '1', '--report-dir', dirOf, ...extra]);
      const report = ReportSchema.parse(JSON.parse(await readFile(join(dirOf, 'latest', 'report.json'), 'utf8')));
      return { r, report, dir: dirOf };
    };
    const quiet = await runOnce('quiet', []);
    expect(quiet.report.totals.findings.performance, quiet.r.stdout + JSON.stringify(quiet.report.properties.map((p) => [p.id, p.status, p.findings.map((f) => f.message)]))).toBe(1);
    expect(quiet.r.code, quiet.r.stderr).toBe(0);
    expect(quiet.report.exitCode).toBe(0);
    expect(quiet.r.stdout).toContain('Performance findings (cost smells, no clause of the spec; not failures):');
    expect(quiet.r.stdout).not.toContain('VIOLATION');

    const loud = await runOnce('loud', ['--fail-on', 'performance']);
    expect(loud.report.totals.findings.performance, loud.r.stdout).toBe(1);
    expect(loud.r.code, loud.r.stderr).toBe(1);
    expect(loud.r.stdout).toContain('failing the run: --fail-on performance');
    expect(loud.report.options.failOn).toEqual(['performance']);
    expect(loud.report.exitCode).toBe(1);
    expect(await readFile(join(loud.dir, 'latest', 'junit.xml'), 'utf8')).toContain('<failure type="performance"');
  }, 240_000);

  it('an unknown kind is a usage error', async () => {
    const r = await pouchproof(['run', '--fail-on', 'assumption']);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('--fail-on expects performance; got "assumption"');
  });
});
