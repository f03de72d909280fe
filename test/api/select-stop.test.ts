/**
 * Selection and stopping through the library and the CLI's flags: `exclude` beside `only`,
 * `maxFailures` (the properties not begun listed, as the time budget lists what it leaves), and
 * `shrink: false` (counterexamples as found). The Action's inputs are test/ci/action.test.ts's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, startReference, UsageError, type Reference } from '../../src/index.ts';
import { parseSuiteArgs } from '../../src/cli/commands/run.ts';
import { parseExamples } from '../../src/cli/args.ts';
import { DEFAULT_EXAMPLES_DIR } from '../../src/session/index.ts';
import { toSummaryMarkdown } from '../../src/report/summary-md.ts';
import { cli } from '../cli/in-process.ts';

let ref: Reference;
beforeAll(async () => {
  ref = await startReference({ faults: ['usage-summed'] });
});
afterAll(async () => {
  await ref?.close();
});

describe('--exclude, --max-failures, --no-shrink as flags', () => {
  it('read as the session options, and refuse bad values in one line', () => {
    const s = parseSuiteArgs({ only: ['usage.*'], exclude: ['usage.concurrent-*,usage.commutative', 'usage.associative'], 'max-failures': 2, shrink: false, examples: 'db' }).session;
    expect(s).toMatchObject({ only: ['usage.*'], exclude: ['usage.concurrent-*', 'usage.commutative', 'usage.associative'], maxFailures: 2, shrink: false, examplesDir: 'db' });
    const plain = parseSuiteArgs({}).session;
    expect(plain.exclude).toBeUndefined();
    expect(plain.maxFailures).toBeUndefined();
    expect(plain.shrink).toBeUndefined();
    expect(() => parseSuiteArgs({ 'max-failures': 0 })).toThrow(/^--max-failures must be an integer from 1 to 10000, got 0$/);
    expect(() => parseSuiteArgs({ 'max-failures': Number.NaN })).toThrow(/^--max-failures must be an integer/);
    expect(parseExamples(false)).toBeUndefined();
    expect(parseExamples('db')).toBe('db');
    // Without a flag: the environment's choice, else the default directory.
    expect(parseExamples(undefined, '')).toBe(DEFAULT_EXAMPLES_DIR);
    expect(parseExamples(undefined, 'off')).toBeUndefined();
    expect(parseExamples(undefined, 'ci-db')).toBe('ci-db');
    expect(parseExamples('db', 'off')).toBe('db');
    expect(() => parseExamples('')).toThrow(/^--examples expects a directory/);
  });

  it('an --exclude that leaves nothing is bad input, said in one line', async () => {
    const r = await cli(['run', '--reference', '--only', 'usage.idempotent', '--exclude', 'usage.*', '--no-examples']);
    expect(r.code).toBe(4);
    expect(r.err).toContain('--exclude usage.* leaves no property to run; see pouchproof list');
    expect(r.err).not.toMatch(/\n\s+at /);
  });
});

describe('run(): exclude, maxFailures and shrink', () => {
  it('leaves the excluded out, stops after the first failing property and lists what it did not run, counterexamples unshrunk', async () => {
    const report = await run({ profile: ref.profile, only: ['usage.*'], exclude: ['usage.concurrent-*', 'usage.large-*'], maxFailures: 1, shrink: false, propertiesAtOnce: 1, runs: 5, seed: 3, readings: 'defaults' });
    const ids = report.properties.map((p) => p.id);
    expect(ids).not.toContain('usage.concurrent-reports');
    expect(ids).not.toContain('usage.large-totals');
    expect(ids[0]).toBe('usage.idempotent');
    expect(report.properties[0]!.status).toBe('failed');
    // The fault fails usage.idempotent first: the run stops there, each property after it listed as not run.
    expect(report.stopped).toEqual({ maxFailures: 1, notRun: ids.slice(1) });
    expect(report.totals.failed).toBe(1);
    for (const p of report.properties.slice(1)) expect(p.status).toBe('inconclusive');
    expect(report.exitCode).toBe(1);
    const failing = report.properties[0]!.findings.filter((f) => f.kind === 'violation');
    expect(failing.length).toBeGreaterThan(0);
    for (const f of failing) expect(f.shrinks).toBe(0);
    expect(report.options).toMatchObject({ exclude: ['usage.concurrent-*', 'usage.large-*'], maxFailures: 1, shrink: false });
    expect(toSummaryMarkdown(report)).toContain(`**Not covered:** stopped after 1 failing property (--max-failures): not run ${ids.slice(1).join(', ')}`);
  });

  it('shrinks by default, and runs everything selected without maxFailures', async () => {
    const report = await run({ profile: ref.profile, only: ['usage.idempotent', 'usage.never-summed'], propertiesAtOnce: 1, runs: 5, seed: 3, readings: 'defaults' });
    expect(report.stopped).toBeUndefined();
    expect(report.properties.map((p) => p.status)).toEqual(['failed', 'failed']);
    expect(report.properties.flatMap((p) => p.findings).some((f) => (f.shrinks ?? 0) > 0)).toBe(true);
  });

  it('refuses a bad maxFailures or exclude as a UsageError', async () => {
    await expect(run({ profile: ref.profile, maxFailures: 0 })).rejects.toThrow(UsageError);
    await expect(run({ profile: ref.profile, exclude: [' '] })).rejects.toThrow(/^--exclude expects property id globs/);
  });
});
