/**
 * The exit code is decided once (src/check/run/exit-code.ts) and read by every entry: for each of its
 * rules, the library's `run()`, the `report.json` the command writes and the process's own exit code
 * agree. One target per rule, the same options through both entries.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, startReference, type Reference } from '../../src/index.ts';
import { pouchproof } from '../cli/spawn-cli.ts';

interface Rule {
  readonly rule: string;
  readonly code: 0 | 1 | 2;
  readonly faults: readonly string[];
  readonly only: string;
  readonly maxDuration?: { readonly ms: number; readonly flag: string };
}

const RULES: readonly Rule[] = [
  { rule: 'every property run passed its floor', code: 0, faults: [], only: 'usage.idempotent' },
  { rule: 'a violation', code: 1, faults: ['usage-summed'], only: 'usage.never-summed' },
  { rule: 'a property below its floor (the time budget ends it)', code: 2, faults: [], only: 'rejection.violations-rejected', maxDuration: { ms: 1000, flag: '1s' } },
  { rule: 'every property skipped (nothing was checked)', code: 2, faults: [], only: 'unlock.head-seq' },
];

const refs = new Map<string, Reference>();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pouchproof-exit-'));
  for (const r of RULES) if (!refs.has(r.faults.join())) refs.set(r.faults.join(), await startReference({ faults: [...r.faults] }));
});
afterAll(async () => {
  for (const ref of refs.values()) await ref.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('report.exitCode, the library and the process exit agree', () => {
  it.each(RULES)('exit $code: $rule', async (r) => {
    const ref = refs.get(r.faults.join())!;
    const common = { only: [r.only], runs: 3, seed: 7 } as const;
    const lib = await run({ profile: ref.profile, ...common, readings: 'defaults', ...(r.maxDuration ? { maxDurationMs: r.maxDuration.ms } : {}), log: () => undefined });

    const profile = join(dir, `${r.code}-${r.only}.profile.json`);
    await writeFile(profile, JSON.stringify(ref.profileDocument));
    const reportDir = join(dir, `${r.code}-${r.only}`);
    const cli = await pouchproof(
      ['run', '--profile', profile, '--only', r.only, '--runs', '3', '--seed', '7', '--assume', 'defaults', '--report-dir', reportDir, ...(r.maxDuration ? ['--max-duration', r.maxDuration.flag] : [])],
      120_000,
    );
    const written = JSON.parse(await readFile(join(reportDir, 'latest/report.json'), 'utf8').catch((e: Error) => { throw new Error(`${e.message}\n${cli.stderr}\n${cli.stdout.slice(-600)}`); })) as { exitCode: number };

    expect({ library: lib.exitCode, report: written.exitCode, process: cli.code }, cli.stderr + cli.stdout.slice(-400)).toEqual({ library: r.code, report: r.code, process: r.code });
  }, 150_000);
});
