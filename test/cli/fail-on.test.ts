/**
 * `--fail-on performance`: a cost smell is reported apart and leaves the exit code alone, unless the
 * run is told to fail on it. Against `serve --fault quadratic-blob-ids`, only the cost probe.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportSchema } from '../../src/report/report-json.ts';
import { BIN, pouchproof, ROOT } from './spawn-cli.ts';

let dir: string;
let server: ChildProcess | undefined;
let profile: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pouchproof-fail-on-'));
  profile = join(dir, 'profile.json');
  server = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--fault', 'quadratic-blob-ids', '--profile-out', profile], { cwd: ROOT });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('serve did not start')), 30_000);
    server!.stdout!.on('data', (d: Buffer) => {
      out += d;
      if (out.includes('profile written')) {
        clearTimeout(timer);
        resolve();
      }
    });
    server!.on('exit', () => reject(new Error('serve exited')));
  });
}, 40_000);

afterAll(async () => {
  if (server && server.exitCode === null) server.kill('SIGTERM');
  await rm(dir, { recursive: true, force: true });
});

describe('--fail-on performance', () => {
  it('a performance finding is reported apart with exit 0, and fails the run with exit 1 under --fail-on performance', async () => {
    const quiet = join(dir, 'quiet');
    const r = await pouchproof(['run', '--profile', profile, '--only', 'performance.*', '--seed', '5', '--report-dir', quiet]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Performance findings (cost smells, no clause of the spec; not failures):');
    expect(r.stdout).not.toContain('VIOLATION');
    const report = ReportSchema.parse(JSON.parse(await readFile(join(quiet, 'latest', 'report.json'), 'utf8')));
    expect(report.totals.findings.performance).toBe(1);
    expect(report.exitCode).toBe(0);

    const loud = join(dir, 'loud');
    const f = await pouchproof(['run', '--profile', profile, '--only', 'performance.*', '--seed', '5', '--fail-on', 'performance', '--report-dir', loud]);
    expect(f.code, f.stderr).toBe(1);
    expect(f.stdout).toContain('failing the run: --fail-on performance');
    const failed = ReportSchema.parse(JSON.parse(await readFile(join(loud, 'latest', 'report.json'), 'utf8')));
    expect(failed.options.failOn).toEqual(['performance']);
    expect(failed.exitCode).toBe(1);
    expect(await readFile(join(loud, 'latest', 'junit.xml'), 'utf8')).toContain('<failure type="performance"');
  }, 120_000);

  it('an unknown kind is a usage error', async () => {
    const r = await pouchproof(['run', '--fail-on', 'assumption']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--fail-on expects performance; got "assumption"');
  });
});
