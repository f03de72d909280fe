/**
 * Reports as asked: `--report` writes only the formats named (default: all), and `--json` gives
 * report.json to stdout alone, every console line to stderr (`pouchproof run --json | jq .exitCode`);
 * the library's `run()` takes the same `reports` option. In this process (test/cli/in-process.ts).
 */
import { readdir, readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run, UsageError } from '../../src/index.ts';
import { ReportSchema } from '../../src/report/report-json.ts';
import { filesOfFormats } from '../../src/report/write.ts';
import { cli } from './in-process.ts';

const ONE = ['--reference', '--only', 'usage.idempotent', '--runs', '2', '--seed', '5', '--assume', 'defaults', '--max-duration', '60s'];
// usage.idempotent has no coverage phase, so no coverage.md.
const ALL = ['findings.har', 'junit.xml', 'report.html', 'report.json', 'summary.md'];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pouchproof-report-formats-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  process.removeAllListeners('SIGINT');
});

const files = async (reports: string) => (await readdir(join(reports, 'latest'))).sort();

describe('--report', () => {
  it('absent: every format', async () => {
    const reports = join(dir, 'all');
    const r = await cli(['run', ...ONE, '--report-dir', reports]);
    expect(r.code, r.err).toBe(0);
    expect(await files(reports)).toEqual(ALL);
  });

  it.each([
    [['--report', 'json,junit'], ['junit.xml', 'report.json']],
    [['--report', 'md', '--report', 'har'], ['findings.har', 'summary.md']],
    [['--report', 'html'], ['report.html']],
  ])('%j: only the files of those formats', async (flags, want) => {
    const reports = join(dir, flags.join('-').replaceAll(',', '_'));
    const r = await cli(['run', ...ONE, '--report-dir', reports, ...flags]);
    expect(r.code, r.err).toBe(0);
    expect(await files(reports)).toEqual(want);
  });
});

describe('--json', () => {
  it('stdout is report.json and nothing else; the console lines are on stderr', async () => {
    const reports = join(dir, 'json');
    const r = await cli(['run', ...ONE, '--report-dir', reports, '--json']);
    expect(r.code, r.err).toBe(0);
    const report = ReportSchema.parse(JSON.parse(r.out));
    expect(report.exitCode).toBe(0);
    expect(report.properties.map((p) => p.id)).toEqual(['usage.idempotent']);
    // The same record as the file, and the console where it would have been on stdout.
    expect(r.out).toBe(await readFile(join(reports, 'latest/report.json'), 'utf8'));
    expect(r.err).toMatch(/^pouchproof \S+ against the embedded reference at /);
    expect(r.err).toMatch(/^ok\s+usage\.idempotent/m);
    expect(r.err).toContain('no violations');
  });

  it('with --report md: still the report on stdout, and only summary.md written', async () => {
    const reports = join(dir, 'json-md');
    const r = await cli(['run', ...ONE, '--report-dir', reports, '--json', '--report', 'md']);
    expect(r.code, r.err).toBe(0);
    expect(ReportSchema.parse(JSON.parse(r.out)).seed).toBe(5);
    expect(await files(reports)).toEqual(['summary.md']);
  });
});

describe('the library', () => {
  it('run({ reports }) writes the formats asked, and refuses an unknown one as the flag does', async () => {
    const reportDir = join(dir, 'lib');
    const report = await run({ target: 'reference', only: ['usage.idempotent'], runs: 2, seed: 5, readings: 'defaults', reportDir, reports: ['junit'] });
    expect(report.exitCode).toBe(0);
    expect(await files(reportDir)).toEqual(['junit.xml']);
    // @ts-expect-error: a format the type does not know, as a JavaScript caller may pass it
    await expect(run({ target: 'reference', reportDir, reports: ['pdf'] })).rejects.toThrow(UsageError);
    // @ts-expect-error: as above
    await expect(run({ target: 'reference', reportDir, reports: ['pdf'] })).rejects.toThrow(/^--report: unknown format "pdf"; the formats are json, junit, html, md, har/);
  });
});

describe('the files beside the standard ones (readings.md, a load run\'s)', () => {
  it('follow the format of their extension; a file of no format (.hlog) goes with every choice', () => {
    const extra = { 'readings.md': '', 'load.json': '', 'load.html': '', 'shard.hlog': '' };
    expect(Object.keys(filesOfFormats(extra, ['md']))).toEqual(['readings.md', 'shard.hlog']);
    expect(Object.keys(filesOfFormats(extra, ['json', 'html']))).toEqual(['load.json', 'load.html', 'shard.hlog']);
    expect(Object.keys(filesOfFormats(extra))).toEqual(Object.keys(extra));
  });
});
