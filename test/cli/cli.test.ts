import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closedPort, pouchproof, serveProcess, spawnPouchproof } from './spawn-cli.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportSchema } from '../../src/report/report-json.ts';
// Imported, not looked for: a suite that moved fails here, never skips the tests below unseen.
import { ALL_PROPERTIES } from '../../properties/index.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pouchproof-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('usage and configuration errors exit 4 with a clear line, no stack trace; an unreachable target 3; nothing checked 2', () => {
  it('unreachable --target', async () => {
    const port = await closedPort();
    const reports = join(dir, 'unreachable');
    const r = await pouchproof(['run', '--target', `http://127.0.0.1:${port}`, '--report-dir', reports]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`cannot reach the target http://127.0.0.1:${port}: connection refused`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // A CI job gets its reports even so: nothing was checked, and they say why.
    const report = JSON.parse(await readFile(join(reports, 'latest', 'report.json'), 'utf8')) as { exitCode: number; inconclusive?: string; totals: { passed: number } };
    expect(report).toMatchObject({ exitCode: 3, totals: { passed: 0 } });
    expect(report.inconclusive).toContain('cannot reach the target');
    expect(await readFile(join(reports, 'latest', 'junit.xml'), 'utf8')).toContain('<testsuite');
  });

  it('a run in which every property was skipped exits 2: nothing was checked', async () => {
    // Something listens (the TCP probe passes) but the URL carries no credentials: every property is skipped.
    const s = createServer((sock) => sock.destroy());
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    try {
      const port = (s.address() as { port: number }).port;
      const r = await pouchproof(['run', '--target', `http://127.0.0.1:${port}`, '--report-dir', join(dir, 'skipped')]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('nothing was checked: every property was skipped');
    } finally {
      await new Promise<void>((r) => s.close(() => r()));
    }
  });

  it('bad flags and inputs', async () => {
    const cases: [string[], RegExp][] = [
      [['run', '--seed', 'abc'], /--seed must be an integer/],
      [['run', '--runs', '0'], /--runs must be an integer from 1/],
      [['run', '--profile', join(dir, 'missing.json')], /cannot read profile/],
      [['run', '--target', 'ftp://x'], /--target/],
      [['run', '--assume', 'no-such-thing=1', '--target', 'http://127.0.0.1:9'], /unknown assumption "no-such-thing"/],
      [['run', '--assume', 'novalue', '--target', 'http://127.0.0.1:9'], /--assume expects NAME=VALUE/],
      [['replay', 'not-a-token'], /not a replay token/],
      [['replay'], /replay needs a token/],
    ];
    const results = await Promise.all(cases.map(([args]) => pouchproof(args)));
    results.forEach((r, i) => {
      expect(r.code, cases[i]![0].join(' ')).toBe(4);
      expect(r.stderr, cases[i]![0].join(' ')).toMatch(cases[i]![1]);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });
  });
});

describe('with the properties', () => {
  it('list prints every property with its section and assumptions', async () => {
    const r = await pouchproof(['list']);
    expect(r.code).toBe(0);
    for (const p of ALL_PROPERTIES) expect(r.stdout).toContain(`${p.id}  (§${p.section})`);
    expect(r.stdout).toContain(`${ALL_PROPERTIES.length} properties`);
    expect(r.stdout).toContain('assumptions:');
  });

  it('run against the embedded reference exits 0 and writes the reports', async () => {
    const reports = join(dir, 'reports');
    const r = await pouchproof(['run', '--reference', '--only', 'usage.*', '--runs', '3', '--seed', '7', '--report-dir', reports]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('seed 7');
    const latest = join(reports, 'latest');
    expect((await readdir(latest)).sort()).toEqual(['findings.har', 'junit.xml', 'readings.md', 'report.html', 'report.json', 'summary.md']);
    const report = JSON.parse(await readFile(join(latest, 'report.json'), 'utf8')) as unknown;
    // --assume auto by default: the readings probed first are in the report, all the registry's defaults here.
    expect(r.stdout).toContain('readings of the target');
    expect((report as { readings?: { readings?: Record<string, string> } }).readings?.readings?.['conflict-behaviour']).toBe('reject-request');
    expect(await readFile(join(latest, 'readings.md'), 'utf8')).toContain('| usage-stored-meaning | rows-changed');
    const parsed = ReportSchema.parse(report);
    expect(parsed.target.embedded).toBe(true);
    expect(parsed.properties.length).toBeGreaterThan(0);
    expect(parsed.properties.every((p) => p.id.startsWith('usage.'))).toBe(true);
  });

  it('Ctrl-C stops the run and still writes a valid partial report (exit 130)', async () => {
    const reports = join(dir, 'interrupted');
    const child = await spawnPouchproof(['run', '--target', 'reference', '--runs', '50', '--seed', '11', '--report-dir', reports], { env: { NO_COLOR: '1' } });
    let out = '';
    let sent = false;
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error('run did not stop after SIGINT'));
      }, 90_000);
      child.stdout?.on('data', (d: Buffer) => {
        out += d;
        // After the first finished property line.
        if (!sent && /\n(ok|FAIL|skip)\s+\S+\.\S+/.test(out)) {
          sent = true;
          child.kill('SIGINT');
        }
      });
      child.on('close', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(sent).toBe(true);
    expect(code).toBe(130);
    const report = ReportSchema.parse(JSON.parse(await readFile(join(reports, 'latest', 'report.json'), 'utf8')));
    expect(report.interrupted).toBe(true);
    expect(report.totals.interrupted).toBeGreaterThan(0);
  });

  it('--only matching nothing is a usage error', async () => {
    const r = await pouchproof(['run', '--reference', '--only', 'nothing.matches']);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('matches no property');
  });

  describe('against a separately started `serve --fault`', () => {
    let server: ChildProcess | undefined;
    afterAll(() => {
      if (server && server.exitCode === null) server.kill('SIGTERM');
    });

    it('run --profile exits 1 with the fault\'s finding, and its replay token reproduces it', async () => {
      const profile = join(dir, 'fault-profile.json');
      ({ server } = await serveProcess(['--fault', 'usage-summed'], profile));
      const reports = join(dir, 'fault-reports');
      const r = await pouchproof(['run', '--profile', profile, '--only', 'usage.*', '--runs', '10', '--seed', '3', '--report-dir', reports]);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/VIOLATION usage\./);
      const report = ReportSchema.parse(JSON.parse(await readFile(join(reports, 'latest', 'report.json'), 'utf8')));
      const v = report.properties.flatMap((p) => p.findings).find((f) => f.kind === 'violation' && f.replay);
      expect(v).toBeDefined();
      const again = await pouchproof(['replay', v!.replay!, '--profile', profile]);
      expect(again.code).toBe(1);
      expect(again.stdout).toContain('reproduced');
    });
  });
});
