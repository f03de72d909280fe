/**
 * The build CLI children run (test/cli-build.ts): made by this run's global setup, it answers as the
 * sources do; a build that failed or never came fails the test that needed it, with the reason.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FAILED, READY } from '../cli-build.ts';
import { builtEntry, cliEntry, ROOT, SOURCE_BIN, withEnv } from './spawn-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'pouchproof-cli-build-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the CLI children run', () => {
  it('is this run\'s build when the global setup made one (the sources otherwise), and answers as the sources do', async () => {
    const entry = await cliEntry();
    const build = process.env.POUCHPROOF_CLI_BUILD;
    expect(entry.bin).toBe(build ? join(build, 'bin/pouchproof.js') : SOURCE_BIN);
    const version = (bin: string, env: Readonly<Record<string, string | undefined>>) => execFileSync(process.execPath, [bin, '--version'], { cwd: ROOT, env: withEnv(env), encoding: 'utf8' });
    expect(version(entry.bin, entry.env)).toBe(version(SOURCE_BIN, { POUCHPROOF_FROM_SOURCE: '1' }));
  });

  it('a build that failed is an error with tsc\'s words; one not made in time, an error naming the wait', async () => {
    const failed = join(dir, 'failed');
    const late = join(dir, 'late');
    for (const d of [failed, late]) mkdirSync(d);
    writeFileSync(join(failed, FAILED), 'tsc exited 2: src/x.ts(1,1): error TS1005');
    await expect(builtEntry(failed)).rejects.toThrow(/build of pouchproof failed: tsc exited 2: src\/x\.ts/);
    await expect(builtEntry(late, 300)).rejects.toThrow(/was not ready within 0\.3 s/);
    writeFileSync(join(late, READY), '');
    await expect(builtEntry(late, 300)).resolves.toEqual({ bin: join(late, 'bin/pouchproof.js'), env: { POUCHPROOF_FROM_SOURCE: undefined } });
  });
});
