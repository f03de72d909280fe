/** `pouchproof load --find-capacity` and `--baseline` end to end: console, exit codes, the three reports. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const reports = mkdtempSync(join(tmpdir(), 'pouchproof-gates-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

function cli(out: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'pouchproof.js'), 'load', ...args, '--report-dir', join(reports, out)], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  const dirs = (() => {
    try {
      return readdirSync(join(reports, out));
    } catch {
      return [];
    }
  })();
  const file = (name: string): string => readFileSync(join(reports, out, dirs[0]!, name), 'utf8');
  return { code: r.status, out: r.stdout, err: r.stderr, file };
}

describe('pouchproof load --find-capacity, then --baseline', () => {
  it('steps the rate up to --max-rate and reports the capacity on the console, in load.md, load.json and load.html', () => {
    const r = cli('cap', '--scenario', 'usage-flood', '--reference', '--workers', '0', '--find-capacity', 'p99<5s', '--rate', '50', '--max-rate', '100/s', '--step-duration', '1s', '--duration', '10s', '--seed', '3');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/step 1 \(grow\): 50 req\/s offered/);
    expect(r.out).toMatch(/^capacity: at least 100 req\/s within p99<5s, errors<1%: the highest rate allowed \(--max-rate\) held$/m);
    const json = JSON.parse(r.file('load.json')) as { rate: number; capacity: { status: string; capacity: number; steps: Array<{ offered: number; within: boolean }> } };
    expect(json.capacity).toMatchObject({ status: 'at-max-rate', capacity: 100 });
    expect(json.capacity.steps.map((s) => [s.offered, s.within])).toEqual([[50, true], [100, true]]);
    expect(json.rate).toBe(100);
    expect(r.file('load.md')).toMatch(/## Capacity[\s\S]*\| 2 \| grow \| 100 \|/);
    const html = r.file('load.html');
    expect(html).toContain('Latency against offered rate');
    expect(html).toContain('objective p99&#60;5s');
    expect(html).toContain('capacity 100/s');
    expect(html).not.toMatch(/<script|src=["']?https?:/i);
  });

  it('breaks a relative threshold when a latency fault slows a run at that rate down (exit 1), with both spectra on one chart', () => {
    // The search's result is its step at capacity (100 req/s for 1 s): the baseline for a run at the same rate,
    // where the stalls hold a tenth of the requests for up to 100 ms.
    const dir = join(reports, 'cap', readdirSync(join(reports, 'cap'))[0]!);
    const slow = cli('slow', '--scenario', 'usage-flood', '--workers', '0', '--rate', '100', '--duration', '1200ms', '--seed', '3', '--fault', 'stall-periodic', '--baseline', dir, '--threshold', 'p99<+10%', '--threshold', 'errors<+1pp');
    expect(slow.code, slow.err + slow.out).toBe(1);
    expect(slow.out).toMatch(/compared with baseline \d{8}-\d{6}-load-usage-flood/);
    expect(slow.out).toMatch(/threshold BROKEN: p99<\+10% \(actual \+[0-9.]+% /);
    expect(slow.out).toMatch(/threshold passed: errors<\+1pp/);
    expect(slow.out).toMatch(/note: reference faults differ: none then, stall-periodic now/);
    expect(slow.file('load.md')).toMatch(/## Compared with baseline[\s\S]*\| p99 \|.*`p99<\+10%` \*\*broken\*\* \|/);
    expect(slow.file('load.html')).toContain('Latency by percentile: baseline and this run');
    expect((JSON.parse(slow.file('load.json')) as { baseline: { rows: unknown[] } }).baseline.rows.length).toBeGreaterThan(5);
  });

  it('refuses a missing baseline with one line and exit 4', () => {
    const r = cli('bad', '--scenario', 'usage-flood', '--baseline', join(reports, 'nope', 'load.json'), '--threshold', 'p99<+10%');
    expect(r.code, r.err).toBe(4);
    expect(r.err).toMatch(/^pouchproof: baseline .*nope.*: no such file\n$/);
  });
});
