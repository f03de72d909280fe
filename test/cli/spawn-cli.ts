/** Running the real `pouchproof` entry in a child process, as a user would, for the CLI tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const BIN = join(import.meta.dirname, '../../bin/pouchproof.js');
export const ROOT = join(import.meta.dirname, '../..');

export interface Done {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `env`: variables added to (or, when undefined, removed from) this process's environment for the
 * child; `nodeArgs`: options of node itself, before the entry (e.g. `--require` a preload).
 */
export function pouchproof(args: string[], timeoutMs = 90_000, env: Readonly<Record<string, string | undefined>> = {}, nodeArgs: readonly string[] = []): Promise<Done> {
  return new Promise((resolve, reject) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    for (const [k, v] of Object.entries(env)) {
      if (v === undefined) delete childEnv[k];
      else childEnv[k] = v;
    }
    const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], { cwd: ROOT, env: childEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
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
export function serveProcess(args: readonly string[], profile: string): Promise<{ server: ChildProcess; exited: Promise<number | null> }> {
  const server = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args, '--profile-out', profile], { cwd: ROOT });
  const exited = new Promise<number | null>((r) => server.on('exit', (code) => r(code)));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('serve did not start')), 30_000);
    server.stdout.on('data', (d: Buffer) => {
      out += d;
      if (out.includes('profile written')) {
        clearTimeout(timer);
        resolve({ server, exited });
      }
    });
    void exited.then(() => reject(new Error('serve exited before it was ready')));
  });
}
