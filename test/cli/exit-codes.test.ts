/**
 * The exit codes, one meaning each (src/check/run/exit-code.ts), as the command line gives them: one
 * target per code, in this process (test/cli/in-process.ts). 0 a passing reference; 1 a faulty one;
 * 2 a run that could not vouch (every property skipped); 3 a closed port, for `run`, `replay` and
 * `load`; 4 a bad flag, a bad number, a bad report format and a bad profile, which write nothing.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXIT, verdictOfExit } from '../../src/check/run/exit-code.ts';
import { EXAMPLE_TOKEN } from '../../src/cli/commands/replay.ts';
import { startReference, type Reference } from '../../src/api/reference.ts';
import { cli } from './in-process.ts';
import { closedPort } from './spawn-cli.ts';

const ONE = ['--runs', '2', '--seed', '7', '--assume', 'defaults', '--max-duration', '60s'];

let dir: string;
let faulty: Reference;
let correct: Reference;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pouchproof-exit-codes-'));
  faulty = await startReference({ faults: ['usage-summed'] });
  correct = await startReference();
});
afterAll(async () => {
  await faulty?.close();
  await correct?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.unstubAllEnvs();
  process.removeAllListeners('SIGINT');
});

async function profileOf(ref: Reference, name: string): Promise<string> {
  const path = join(dir, `${name}.profile.json`);
  await writeFile(path, JSON.stringify(ref.profileDocument));
  return path;
}

const exitOfReport = async (reports: string) => (JSON.parse(await readFile(join(reports, 'latest/report.json'), 'utf8')) as { exitCode: number }).exitCode;

describe('run: one target per exit code, the report agreeing', () => {
  it('0: a correct target, every property passed', async () => {
    const reports = join(dir, 'passed');
    const r = await cli(['run', '--profile', await profileOf(correct, 'correct'), '--only', 'usage.idempotent', ...ONE, '--report-dir', reports]);
    expect(r.code, r.err).toBe(EXIT.passed);
    expect(await exitOfReport(reports)).toBe(0);
  });

  it('1: a faulty reference (usage-summed): the target broke the spec', async () => {
    const reports = join(dir, 'failed');
    const r = await cli(['run', '--profile', await profileOf(faulty, 'faulty'), '--only', 'usage.never-summed', ...ONE, '--report-dir', reports]);
    expect(r.code, r.err).toBe(EXIT.failed);
    expect(await exitOfReport(reports)).toBe(1);
  });

  it('2: every property skipped, nothing checked: could not vouch', async () => {
    const reports = join(dir, 'inconclusive');
    const r = await cli(['run', '--profile', await profileOf(correct, 'correct-2'), '--only', 'unlock.head-seq', ...ONE, '--report-dir', reports]);
    expect(r.code, r.err).toBe(EXIT.inconclusive);
    expect(r.err).toContain('nothing was checked');
    expect(await exitOfReport(reports)).toBe(2);
  });

  it('3: a closed port: the target could not be reached, and the report says so', async () => {
    const reports = join(dir, 'unreachable');
    const r = await cli(['run', '--target', `http://127.0.0.1:${await closedPort()}`, ...ONE, '--report-dir', reports]);
    expect(r.code, r.err).toBe(EXIT.unreachable);
    expect(r.err).toMatch(/cannot reach the target http:\/\/127\.0\.0\.1:\d+/);
    expect(await exitOfReport(reports)).toBe(3);
    expect(await readFile(join(reports, 'latest/summary.md'), 'utf8')).toMatch(/^## pouchproof: could not vouch for anything: cannot reach the target/);
  });

  it.each([
    ['a bad flag', ['--bogus-flag'], /^pouchproof: unknown option --bogus-flag; --help lists them$/m],
    ['a bad number', ['--runs', 'many'], /^pouchproof: --runs must be an integer from 1 to 100000, got NaN$/m],
    ['a bad report format', ['--report', 'json,pdf'], /^pouchproof: --report: unknown format "pdf"; the formats are json, junit, html, md, har \(default: all\)$/m],
  ])('4: %s: one line, nothing run or written', async (_what, extra, message) => {
    const reports = join(dir, `config-${extra[0]}`);
    const r = await cli(['run', '--reference', ...ONE, '--report-dir', reports, ...extra]);
    expect(r.code).toBe(EXIT.configError);
    expect(r.err).toMatch(message);
    expect(r.err).not.toMatch(/\n\s+at /);
    expect(existsSync(reports)).toBe(false);
  });

  it('4: a bad profile (not JSON), as for a missing one', async () => {
    const bad = join(dir, 'bad.profile.json');
    await writeFile(bad, '{ "baseUrl": ');
    for (const profile of [bad, join(dir, 'missing.profile.json')]) {
      const r = await cli(['run', '--profile', profile, ...ONE, '--report-dir', join(dir, 'bad-profile')]);
      expect(r.code, profile).toBe(EXIT.configError);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    }
    expect(existsSync(join(dir, 'bad-profile'))).toBe(false);
  });

  it('4 under CI with no target, as the CI rule refuses it', async () => {
    vi.stubEnv('CI', 'true');
    const r = await cli(['run', ...ONE, '--report-dir', join(dir, 'ci')]);
    expect(r.code).toBe(EXIT.configError);
    expect(r.err).toMatch(/^pouchproof: CI is set and no target was given/);
  });
});

describe('the other commands against a target', () => {
  it('replay: 3 for a closed port, 4 for a bad token', async () => {
    const down = await cli(['replay', EXAMPLE_TOKEN, '--target', `http://127.0.0.1:${await closedPort()}`]);
    expect(down.code, down.err).toBe(EXIT.unreachable);
    expect(down.err).toMatch(/^pouchproof: cannot reach the target/);
    const bad = await cli(['replay', 'not-a-token', '--reference']);
    expect(bad.code).toBe(EXIT.configError);
  });

  it('load: 3 for a closed port, 4 for a bad number', async () => {
    const down = await cli(['load', '--scenario', 'usage-flood', '--target', `http://127.0.0.1:${await closedPort()}`, '--duration', '1s', '--report-dir', join(dir, 'load')]);
    expect(down.code, down.err).toBe(EXIT.unreachable);
    expect(down.err).toMatch(/^pouchproof: cannot reach the target http:\/\/127\.0\.0\.1:\d+/m);
    const bad = await cli(['load', '--scenario', 'usage-flood', '--reference', '--seed', 'x', '--duration', '1s', '--report-dir', join(dir, 'load')]);
    expect(bad.code).toBe(EXIT.configError);
    expect(bad.err).toMatch(/^pouchproof: --seed must be an integer between -2147483648 and 2147483647, got NaN$/m);
  });

  it('compare and mutants: a bad number is the same one line, exit 4', async () => {
    const compare = await cli(['compare', '--target', 'http://127.0.0.1:9', '--target', 'http://127.0.0.1:10', '--runs', 'two']);
    expect(compare.code).toBe(EXIT.configError);
    expect(compare.err).toMatch(/^pouchproof: --runs must be an integer from 1 to 100000, got NaN$/m);
    const mutants = await cli(['mutants', '--seed', '']);
    expect(mutants.code).toBe(EXIT.configError);
    expect(mutants.err).toMatch(/^pouchproof: --seed must be an integer between -2147483648 and 2147483647, got NaN$/m);
  });
});

describe('the exit codes in words', () => {
  it('name each code once, as the Action\'s verdict output does', () => {
    const words = Object.values(EXIT).map(verdictOfExit);
    expect(words).toEqual(['passed', 'failed', 'inconclusive', 'unreachable', 'config-error']);
    expect(new Set(Object.values(EXIT)).size).toBe(5);
  });
});
