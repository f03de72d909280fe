/** `pouchproof compare` through the CLI entry: the matrix, the reports, exit codes, bad input. */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closedPort, pouchproof } from './spawn-cli.ts';

describe('pouchproof compare', () => {
  it('the embedded reference against a target that is down: that side reported, exit 3 (a side not reached, none broke the spec), reports written', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pp-compare-'));
    const port = await closedPort();
    const r = await pouchproof(['compare', '--profile', 'reference', '--target', `http://127.0.0.1:${port}`, '--only', 'usage.idempotent', '--runs', '3', '--seed', '5', '--report-dir', dir]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('properties × targets');
    expect(r.stdout).toMatch(/http:\/\/127\.0\.0\.1:\d+: not judged: .*connection refused/);
    const json = JSON.parse(await readFile(join(dir, 'latest', 'compare.json'), 'utf8')) as { seed: number; sides: { name: string }[]; exitCode: number };
    expect(json.seed).toBe(5);
    expect(json.sides.map((s) => s.name)[0]).toBe('reference');
    expect(json.exitCode).toBe(3);
    const md = await readFile(join(dir, 'latest', 'compare.md'), 'utf8');
    expect(md).toContain('## Readings × targets');
    const html = await readFile(join(dir, 'latest', 'compare.html'), 'utf8');
    expect(html).toContain('<h2>Readings × targets</h2>');
    expect(html).toMatch(/<td><b>reference<\/b><\/td>/);
  });

  it('fewer than two targets or a bad flag: one line, exit 4', async () => {
    const one = await pouchproof(['compare', '--profile', 'reference']);
    expect(one.code).toBe(4);
    expect(one.stderr).toMatch(/at least two targets/);
    const bad = await pouchproof(['compare', '--profile', 'reference', '--target', 'ftp://x']);
    expect(bad.code).toBe(4);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });
});
