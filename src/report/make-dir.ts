/**
 * Makes a directory and its missing parents, one level at a time. Node's own recursive mkdir never
 * returns for a path under /proc (Node 20: `--report-dir /proc/x` spun a thread of the pool forever at
 * the end of the run, and so did `--examples /proc/x` once a case failed); one level at a time, each
 * mkdir answers (ENOENT there). Every directory a user names is made through it.
 */
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { errorCode } from '../spec/index.ts';

export async function makeDir(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let d = resolve(dir); !(await isDirectory(d)); d = dirname(d)) {
    missing.push(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing.reverse()) {
    await mkdir(d).catch((e: unknown) => {
      if (errorCode(e) !== 'EEXIST') throw e;
    });
  }
}

async function isDirectory(p: string): Promise<boolean> {
  return stat(p).then((s) => s.isDirectory(), () => false);
}
