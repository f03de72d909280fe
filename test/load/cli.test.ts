import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const reports = mkdtempSync(join(tmpdir(), 'pouchproof-load-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

function cli(...args: string[]) {
  return cliIn(process.env, ...args);
}

function cliIn(env: NodeJS.ProcessEnv, ...args: string[]) {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'pouchproof.js'), 'load', ...args, '--report-dir', reports], { cwd: root, encoding: 'utf8', timeout: 60_000, env });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('pouchproof load', () => {
  it('sets exit code 1 when a threshold is broken and writes the three reports', () => {
    const r = cli('--scenario', 'commit-throughput', '--reference', '--duration', '1s', '--workers', '0', '--threshold', 'p99<60s', '--threshold', 'goodput>100000000/s');
    expect(r.code, r.err).toBe(1);
    expect(r.out).toMatch(/threshold passed: p99<60s/);
    expect(r.out).toMatch(/threshold BROKEN: goodput>100000000\/s/);
    const dirs = readdirSync(reports).filter((d) => /^\d{8}-\d{6}-load-commit-throughput/.test(d));
    expect(dirs).toHaveLength(1);
    const files = readdirSync(join(reports, dirs[0]!)).sort();
    expect(files).toEqual(['load.html', 'load.json', 'load.md']);
    const json = JSON.parse(readFileSync(join(reports, dirs[0]!, 'load.json'), 'utf8')) as { thresholds: Array<{ passed: boolean }>; exitCode: number };
    expect(json.thresholds.map((t) => t.passed)).toEqual([true, false]);
    const html = readFileSync(join(reports, dirs[0]!, 'load.html'), 'utf8');
    expect(html).toContain('<svg');
    expect(html).not.toMatch(/<script|<link|src=["']?https?:|url\(/i);
    expect(html).not.toMatch(/Bearer/);
  });

  it('exits 0 when every threshold holds', () => {
    const r = cli('--scenario', 'usage-flood', '--reference', '--duration', '500ms', '--workers', '0', '--threshold', 'errors<1%', '--threshold', 'rps>0.1/s');
    expect(r.code, r.err).toBe(0);
  });

  it('under CI without a target: refused in one line, exit 4, nothing measured; a --fault names the reference on purpose', () => {
    const before = readdirSync(reports).length;
    const r = cliIn({ ...process.env, CI: '1' }, '--scenario', 'usage-flood', '--duration', '300ms', '--workers', '0');
    expect(r.code, r.err).toBe(4);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^pouchproof: CI is set and no target was given, so load would test pouchproof's embedded reference instead of your service: .*--reference to test the embedded reference on purpose\n$/);
    expect(readdirSync(reports)).toHaveLength(before);
    const faulted = cliIn({ ...process.env, CI: '1' }, '--scenario', 'usage-flood', '--fault', 'stall-periodic', '--duration', '300ms', '--workers', '0');
    expect(faulted.code, faulted.err).toBe(0);
  });

  it('refuses bad input with one line and exit 4', () => {
    for (const args of [
      ['--scenario', 'commit-throughput', '--reference', '--threshold', 'p99<<5'],
      ['--scenario', 'commit-throughput', '--reference', '--duration', 'soon'],
      ['--scenario', 'commit-throughput', '--reference', '--param', 'ops=51'],
      ['--scenario', 'commit-throughput', '--target', 'http://192.0.2.1:8080'],
    ]) {
      const r = cli(...args);
      expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(4);
      expect(r.err.trim().split('\n'), r.err).toHaveLength(1);
      expect(r.err).not.toMatch(/\n\s+at /);
    }
    expect(cli('--scenario', 'commit-throughput', '--target', 'http://192.0.2.1:8080').err).toMatch(/--allow-remote/);
  });
});
