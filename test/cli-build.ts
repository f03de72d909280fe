/**
 * vitest's global setup: a build of this working tree for the tests that run `pouchproof` as a child
 * process. From the sources each child spends ~1.1 s of CPU starting tsx and loading the tree through
 * it, against ~0.55 s from JavaScript; a full run starts about a hundred. The build is tsc's emit
 * without its type check (the type check is `npm test`'s first step), made at the start of this run
 * from the files the run tests, in a temporary directory, never in dist/: so it cannot be stale, and
 * `npm pack` (test/package/pack.test.ts) never rewrites what a running child loads.
 *
 * It is made in the background: the first child that needs it waits for it (test/cli/spawn-cli.ts
 * `cliEntry`), the tests that need none start at once. POUCHPROOF_CLI_BUILD tells the workers where.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

const ROOT = join(import.meta.dirname, '..');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

/** The files that mark the build's end, one or the other (read by test/cli/spawn-cli.ts). */
export const READY = '.ready';
export const FAILED = '.failed';

export default function setup(project: TestProject): (() => void) | undefined {
  // Each project's setup runs this: the first one builds for all. In watch mode a build made once
  // would go stale at the first edit: the children run the sources there.
  if (process.env.POUCHPROOF_CLI_BUILD || project.vitest.config.watch) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'pouchproof-cli-build-'));
  process.env.POUCHPROOF_CLI_BUILD = dir;
  const tsc = spawn(process.execPath, [TSC, '-p', 'tsconfig.build.json', '--noCheck', '--outDir', join(dir, 'dist')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  tsc.stdout.on('data', (d: Buffer) => (output += d));
  tsc.stderr.on('data', (d: Buffer) => (output += d));
  let torn = false;
  tsc.on('close', (code) => {
    // A run shorter than the build tears it down first: the directory is gone, nothing is written.
    if (torn) return;
    if (code !== 0) return writeFileSync(join(dir, FAILED), `tsc -p tsconfig.build.json --noCheck exited ${code}:\n${output.slice(-4000)}`);
    // The layout of the package: bin/ beside dist/, its package.json (type: module, the version), its dependencies.
    cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, READY), '');
  });
  return () => {
    torn = true;
    tsc.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
}
