/** Running the real `pouchproof` entry in a child process, as a user would, for the CLI tests. */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { FAILED, READY } from '../cli-build.ts';

export const ROOT = join(import.meta.dirname, '../..');
export const SOURCE_BIN = join(ROOT, 'bin/pouchproof.js');

/** How long a child waits for the run's build (test/cli-build.ts: ~5 s alone, longer beside the tests). */
const BUILD_WAIT_MS = 180_000;

export interface CliEntry {
  /** The file node runs. */
  readonly bin: string;
  /** Variables the child's environment needs (undefined: removed). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

let built: Promise<CliEntry> | undefined;

/**
 * The entry a child runs: the build this test run made of the working tree (test/cli-build.ts), once
 * it is there, or the sources through tsx when the run made none (vitest without its global setup).
 */
export function cliEntry(): Promise<CliEntry> {
  const dir = process.env.POUCHPROOF_CLI_BUILD;
  if (!dir) return Promise.resolve({ bin: SOURCE_BIN, env: {} });
  built ??= builtEntry(dir);
  return built;
}

/** The entry of the build in `dir` once it is made; a build that failed fails the test that needed it, with tsc's words. */
export async function builtEntry(dir: string, waitMs = BUILD_WAIT_MS): Promise<CliEntry> {
  for (const until = Date.now() + waitMs; ; await delay(100)) {
    if (existsSync(join(dir, FAILED))) throw new Error(`the test run's build of pouchproof failed: ${readFileSync(join(dir, FAILED), 'utf8')}`);
    if (existsSync(join(dir, READY))) return { bin: join(dir, 'bin/pouchproof.js'), env: { POUCHPROOF_FROM_SOURCE: undefined } };
    if (Date.now() >= until) throw new Error(`the test run's build of pouchproof (${dir}) was not ready within ${waitMs / 1000} s`);
  }
}

/** This process's environment with `changes` applied (undefined removes a variable). */
export function withEnv(...changes: readonly Readonly<Record<string, string | undefined>>[]): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const c of changes) {
    for (const [k, v] of Object.entries(c)) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
  }
  return env;
}

/** `pouchproof ARGS…` as a child process (cwd: the project), once its entry is ready. */
export async function spawnPouchproof(args: readonly string[], o: { readonly env?: Readonly<Record<string, string | undefined>>; readonly nodeArgs?: readonly string[]; readonly stdio?: StdioOptions; readonly cwd?: string } = {}): Promise<ChildProcess> {
  const entry = await cliEntry();
  return spawn(process.execPath, [...(o.nodeArgs ?? []), entry.bin, ...args], { cwd: o.cwd ?? ROOT, env: withEnv(entry.env, o.env ?? {}), stdio: o.stdio ?? 'pipe' });
}

export interface Done {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `env`: variables added to (or, when undefined, removed from) this process's environment for the
 * child; `nodeArgs`: options of node itself, before the entry (e.g. `--require` a preload).
 */
export async function pouchproof(args: string[], timeoutMs = 90_000, env: Readonly<Record<string, string | undefined>> = {}, nodeArgs: readonly string[] = []): Promise<Done> {
  const child = await spawnPouchproof(args, { env: { NO_COLOR: '1', ...env }, nodeArgs });
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d));
    child.stderr?.on('data', (d: Buffer) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`pouchproof ${args.join(' ')} did not finish in ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A port nothing listens on: bound, noted, released. */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/**
 * `pouchproof serve --port 0 ARGS… --profile-out PROFILE` in a child process, resolved once it has
 * written its profile (rejected if it exits first or is not ready within 30 s). `exited` settles with
 * its exit code, for tests that take the server down.
 */
export async function serveProcess(args: readonly string[], profile: string): Promise<{ server: ChildProcess; exited: Promise<number | null> }> {
  const server = await spawnPouchproof(['serve', '--port', '0', ...args, '--profile-out', profile]);
  const exited = new Promise<number | null>((r) => server.on('exit', (code) => r(code)));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('serve did not start')), 30_000);
    server.stdout?.on('data', (d: Buffer) => {
      out += d;
      if (out.includes('profile written')) {
        clearTimeout(timer);
        resolve({ server, exited });
      }
    });
    void exited.then(() => reject(new Error('serve exited before it was ready')));
  });
}
