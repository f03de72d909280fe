/** Writes report files into a directory the user named, as they are (no run-id subdirectory, no `latest`). */
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDir } from './make-dir.ts';

export async function writeExactDir(dir: string, files: Readonly<Record<string, string>>): Promise<string> {
  await makeDir(dir);
  for (const [name, text] of Object.entries(files)) {
    if (name.includes('/') || name.includes('\\') || name.startsWith('.')) throw new Error(`bad report file name ${name}`);
    // Each file appears whole or not at all.
    const tmp = join(dir, `.${name}.${process.pid}.tmp`);
    await writeFile(tmp, text, 'utf8');
    await rename(tmp, join(dir, name));
  }
  return dir;
}
