/**
 * No target, no run, in CI (src/cli/ci.ts): `run` without a target tests the embedded reference and
 * says so on its first console line and in summary.md; under CI it refuses (exit 4, one line) unless
 * the reference is named on purpose; `start` is such a choice. In-process (main()), one property each.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { inCi } from '../../src/cli/ci.ts';
import { toolVersion } from '../../src/session/index.ts';
import { cli } from './in-process.ts';

const VERSION = toolVersion();
const ONE = ['--only', 'usage.idempotent', '--runs', '2', '--seed', '3', '--assume', 'defaults', '--max-duration', '60s'];
const REFUSED = /^pouchproof: CI is set and no target was given, so run would test pouchproof's embedded reference instead of your service: give --profile FILE or --target URL .*, or --reference to test the embedded reference on purpose\n$/;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pouchproof-ci-rule-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.unstubAllEnvs();
  process.removeAllListeners('SIGINT');
});

const report = async (reports: string) => JSON.parse(await readFile(join(reports, 'latest/report.json'), 'utf8')) as { target: { embedded: boolean }; tool: { version: string } };

describe('the CI variable', () => {
  it('is CI when set to anything but empty, false or 0', () => {
    for (const v of ['true', '1', 'TRUE', 'gitlab', 'yes']) expect(inCi({ CI: v }), v).toBe(true);
    for (const v of [undefined, '', ' ', 'false', 'False', '0']) expect(inCi(v === undefined ? {} : { CI: v }), String(v)).toBe(false);
  });
});

describe('run without a target', () => {
  it('outside CI tests the embedded reference, and says so first on the console and in summary.md, with the version', async () => {
    vi.stubEnv('CI', '');
    const reports = join(dir, 'no-ci');
    const r = await cli(['run', ...ONE, '--report-dir', reports]);
    expect(r.code, r.err).toBe(0);
    expect(r.out.split('\n')[0]).toMatch(new RegExp(`^pouchproof ${VERSION.replaceAll('.', '\\.')} against the embedded reference at http://127\\.0\\.0\\.1:\\d+ \\(pouchproof's own server, not your service\\), seed 3, 2 runs per property$`));
    const summary = await readFile(join(reports, 'latest/summary.md'), 'utf8');
    const lines = summary.split('\n');
    // The verdict stays the first line (the GitHub Action reads it); the target comes next.
    expect(lines[0]).toBe('## pouchproof: no violations');
    expect(lines[2]).toBe("**The target is the embedded reference** (pouchproof's own server, not your service)");
    expect(summary).toContain(`· pouchproof ${VERSION}`);
    expect((await report(reports)).target.embedded).toBe(true);
  });

  it.each(['1', 'true'])('under CI=%s is refused: exit 4, one line, nothing run or written', async (ci) => {
    vi.stubEnv('CI', ci);
    const reports = join(dir, `refused-${ci}`);
    const r = await cli(['run', ...ONE, '--report-dir', reports]);
    expect(r.code).toBe(4);
    expect(r.out).toBe('');
    expect(r.err).toMatch(REFUSED);
    await expect(stat(reports)).rejects.toThrow(/ENOENT/);
  });

  it.each([['--reference'], ['--target', 'reference']])('under CI, %s names the embedded reference on purpose: it runs', async (...flag) => {
    vi.stubEnv('CI', '1');
    const reports = join(dir, `named-${flag.join('')}`);
    const r = await cli(['run', ...flag, ...ONE, '--report-dir', reports]);
    expect(r.code, r.err).toBe(0);
    expect(r.out.split('\n')[0]).toMatch(/^pouchproof \S+ against the embedded reference at /);
    expect((await report(reports)).target.embedded).toBe(true);
  });

  it('--reference beside another target is bad input', async () => {
    const r = await cli(['run', '--reference', '--target', 'http://127.0.0.1:9', ...ONE]);
    expect(r.code).toBe(4);
    expect(r.err).toBe('pouchproof: give one of --profile, --target or --reference, not more\n');
  });
});

describe('start (npm start) under CI', () => {
  it('still runs the embedded reference: start is the choice of it', async () => {
    vi.stubEnv('CI', 'true');
    const reports = join(dir, 'start');
    const r = await cli(['start', '--no-load', ...ONE, '--report-dir', reports]);
    expect(r.code, r.err).toBe(0);
    expect(r.out.split('\n')[0]).toMatch(/^pouchproof \S+ against the embedded reference at /);
    expect((await report(reports)).target.embedded).toBe(true);
  });
});
