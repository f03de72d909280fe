/**
 * The exit code is decided once (src/check/run/exit-code.ts) and read by every entry: for each of its
 * rules, the library's `run()`, the `report.json` the command writes and the process's own exit code
 * agree. One target per rule, the same options through both entries.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseProfile, run, startReference, UsageError, type Reference } from '../../src/index.ts';
import { closedPort, pouchproof } from '../cli/spawn-cli.ts';

interface Rule {
  readonly rule: string;
  readonly code: 0 | 1 | 2 | 3;
  readonly faults: readonly string[];
  /** A closed port instead of the reference: nothing listens there. */
  readonly closed?: true;
  readonly only: string;
  readonly maxDuration?: { readonly ms: number; readonly flag: string };
  /** Random cases planned (default 3). */
  readonly runs?: number;
}

/**
 * Cases no second of any machine runs: a warm test worker on a fast machine ran rejection's coverage
 * phase and 3 random cases (~3,500 requests) within 1 s, and the library's run passed its floor (exit 0).
 * The most `--runs` allows, so this is also the budget's test against a plan it cuts: drawn all at once,
 * its cases took minutes and 4 GB before the first was sent (src/check/run/draws.ts).
 */
const RUNS_NO_SECOND_ENDS = 100_000;

const RULES: readonly Rule[] = [
  { rule: 'every property run passed its floor', code: 0, faults: [], only: 'usage.idempotent' },
  { rule: 'a violation', code: 1, faults: ['usage-summed'], only: 'usage.never-summed' },
  { rule: 'a property below its floor (the time budget ends it)', code: 2, faults: [], only: 'rejection.violations-rejected', maxDuration: { ms: 1000, flag: '1s' }, runs: RUNS_NO_SECOND_ENDS },
  { rule: 'every property skipped (nothing was checked)', code: 2, faults: [], only: 'unlock.head-seq' },
  { rule: 'a target that cannot be reached (a closed port)', code: 3, faults: [], only: 'usage.idempotent', closed: true },
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
    const runs = r.runs ?? 3;
    const common = { only: [r.only], runs, seed: 7 } as const;
    const document = r.closed ? { ...(ref.profileDocument as object), baseUrl: `http://127.0.0.1:${await closedPort()}` } : ref.profileDocument;
    const lib = await run({ profile: parseProfile(document), ...common, readings: 'defaults', ...(r.maxDuration ? { maxDurationMs: r.maxDuration.ms } : {}), log: () => undefined });

    const profile = join(dir, `${r.code}-${r.only}.profile.json`);
    await writeFile(profile, JSON.stringify(document));
    const reportDir = join(dir, `${r.code}-${r.only}`);
    const cli = await pouchproof(
      ['run', '--profile', profile, '--only', r.only, '--runs', String(runs), '--seed', '7', '--assume', 'defaults', '--report-dir', reportDir, ...(r.maxDuration ? ['--max-duration', r.maxDuration.flag] : [])],
      120_000,
    );
    const written = JSON.parse(await readFile(join(reportDir, 'latest/report.json'), 'utf8').catch((e: Error) => { throw new Error(`${e.message}\n${cli.stderr}\n${cli.stdout.slice(-600)}`); })) as { exitCode: number };

    expect({ library: lib.exitCode, report: written.exitCode, process: cli.code }, cli.stderr + cli.stdout.slice(-400)).toEqual({ library: r.code, report: r.code, process: r.code });
  }, 150_000);
});

describe('4, bad input to pouchproof: the library throws what the process exits 4 on, and no report is written', () => {
  it.each([
    ['a bad number', { runs: 0 }, ['--runs', '0'], /^--runs must be an integer from 1 to 100000, got 0$/],
    ['a bad report format', { reports: ['pdf'] }, ['--report', 'pdf'], /^--report: unknown format "pdf"/],
  ] as const)('%s', async (_what, option, flag, message) => {
    const reportDir = join(dir, `config-${flag[0]}`);
    // @ts-expect-error: a value the option's type refuses, as a JavaScript caller may pass it
    await expect(run({ target: 'reference', reportDir, ...option })).rejects.toThrow(UsageError);
    // @ts-expect-error: as above
    await expect(run({ target: 'reference', reportDir, ...option })).rejects.toThrow(message);
    const cli = await pouchproof(['run', '--reference', '--report-dir', reportDir, ...flag]);
    expect(cli.code, cli.stderr).toBe(4);
    expect(cli.stderr).toMatch(new RegExp(`^pouchproof: ${message.source.slice(1)}`, 'm'));
    await expect(readFile(join(reportDir, 'latest/report.json'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('a report directory that cannot be written: refused before the run sends anything, not after it', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, '');
    // A parent that is a file, and a path under /proc, where Node's own recursive mkdir never returned.
    for (const [reportDir, code] of [[join(file, 'reports'), 'ENOTDIR'], ['/proc/pouchproof-reports', 'ENOENT']] as const) {
      const seen: string[] = [];
      const ref = refs.get('');
      expect(ref, 'the correct reference of the rules above').toBeDefined();
      const options = { profile: parseProfile(ref!.profileDocument), reportDir, only: ['usage.idempotent'], readings: 'auto' as const, log: (l: string) => seen.push(l), onProgress: (e: { type: string }) => seen.push(e.type) };
      await expect(run(options)).rejects.toThrow(new UsageError(`cannot write the reports to ${reportDir}: ${code}`));
      // Neither the readings probe nor a property began.
      expect(seen).toEqual([]);
      const cli = await pouchproof(['run', '--reference', '--only', 'usage.idempotent', '--report-dir', reportDir], 60_000);
      expect({ code: cli.code, stderr: cli.stderr.trim() }).toEqual({ code: 4, stderr: `pouchproof: cannot write the reports to ${reportDir}: ${code}` });
      expect(cli.stdout).not.toMatch(/usage\.idempotent/);
    }
  });

  it('a profile that is not JSON', async () => {
    const bad = join(dir, 'bad.profile.json');
    await writeFile(bad, '{ "baseUrl": ');
    await expect(run({ profile: bad })).rejects.toThrow(UsageError);
    const cli = await pouchproof(['run', '--profile', bad, '--report-dir', join(dir, 'bad-profile')]);
    expect(cli.code, cli.stderr).toBe(4);
    expect(cli.stderr.trim().split('\n')).toHaveLength(1);
  });
});
