/**
 * What `load k8s` sets up, on one machine: three shard processes sharing --start-at and --seed
 * against one reference server in its own process, then `load merge` of their report directories.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import loadMerge from '../../src/cli/commands/load-merge.ts';
import { pouchproof, serveProcess } from '../cli/spawn-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'pouchproof-shards-sim-'));
let server: ChildProcess | undefined;
afterAll(() => {
  server?.kill();
  rmSync(dir, { recursive: true, force: true });
});

interface Json {
  totals: { sent: number; completed: number; ok: number; units: number; errors: number };
  latency: { count: number };
  checks: Array<{ name: string; passed: boolean }>;
  merged?: { count: number; present: number[]; missing: number[] };
  shard?: { index: number; count: number };
  connections: number;
}

const readJson = (p: string): Json => JSON.parse(readFileSync(p, 'utf8')) as Json;

describe('sharded load, simulated', () => {
  it('three shards with one start, merged: totals and histogram counts add up', async () => {
    const profile = join(dir, 'profile.json');
    ({ server } = await serveProcess([], profile));
    const reports = join(dir, 'reports');
    const startAt = String(Date.now() + 3000);
    const shards = await Promise.all(
      [0, 1, 2].map((i) =>
        pouchproof(['load', '--scenario', 'commit-throughput', '--profile', profile, '--duration', '1s', '--workers', '0', '--connections', '6', '--seed', '42', '--shard', `${i}/3`, '--start-at', startAt, '--threshold', 'p99<60s', '--report-dir', reports]),
      ),
    );
    for (const s of shards) expect(s.code, s.stderr).toBe(0);
    const runs = readdirSync(reports).filter((d) => d !== 'latest' && !d.startsWith('.'));
    expect(runs).toHaveLength(3);
    const parts = runs.map((d) => readJson(join(reports, d, 'load.json')));
    expect(parts.map((p) => p.shard?.index).sort()).toEqual([0, 1, 2]);
    // Closed model: each shard opens its share of the connections.
    expect(parts.map((p) => p.connections)).toEqual([2, 2, 2]);
    // A shard whose artifacts another shard had touched would fail its own head checks.
    for (const p of parts) expect(p.checks.filter((c) => !c.passed)).toEqual([]);

    const mergedDir = join(dir, 'merged');
    const m = await pouchproof(['load', 'merge', reports, '--expect-shards', '3', '--report-dir', mergedDir]);
    expect(m.code, m.stderr + m.stdout).toBe(0);
    expect(m.stdout).toMatch(/merged 3 of 3 shards/);
    expect(m.stdout).toMatch(/threshold passed: p99<60s/);
    const merged = readJson(join(mergedDir, 'load.json'));
    const sum = (f: (j: Json) => number): number => parts.reduce((a, p) => a + f(p), 0);
    expect(merged.totals.sent).toBe(sum((p) => p.totals.sent));
    expect(merged.totals.ok).toBe(sum((p) => p.totals.ok));
    expect(merged.totals.units).toBe(sum((p) => p.totals.units));
    expect(merged.latency.count).toBe(sum((p) => p.latency.count));
    expect(merged.latency.count).toBeGreaterThan(0);
    expect(merged.connections).toBe(6);
    expect(merged.merged).toMatchObject({ count: 3, present: [0, 1, 2], missing: [] });
    expect(readdirSync(mergedDir).sort()).toEqual(['load.html', 'load.json', 'load.md']);

    // The same shards, as one file of collected logs missing one of them, under a threshold that breaks.
    const log = runs.slice(0, 2).map((d) => ['shard.json', 'shard.hlog'].map((f) => `#### pouchproof-shard-file begin ${readJson(join(reports, d, 'load.json')).shard!.index}/3 ${f}\n${readFileSync(join(reports, d, f), 'utf8')}#### pouchproof-shard-file end ${readJson(join(reports, d, 'load.json')).shard!.index}/3 ${f}\n`).join('')).join('pod output\n');
    writeFileSync(join(dir, 'shards.log'), log);
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    let code: number;
    let printed = '';
    try {
      code = await loadMerge.handler({ inputs: [join(dir, 'shards.log')], threshold: ['p99<1us'], 'report-dir': join(dir, 'partial'), reports: reports });
      printed = out.mock.calls.map((c) => String(c[0])).join('');
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    expect(code).toBe(1);
    expect(printed).toMatch(/MISSING shards: \d/);
    expect(printed).toMatch(/threshold BROKEN: p99<1us/);
  }, 60_000);
});
