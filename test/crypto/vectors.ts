/** Locates the shared test vectors: `../shared/vectors` beside the repository root (see its README.md), or POUCHPROOF_VECTORS. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHARED_DIR } from '../repo-paths.ts';

const BESIDE = join(SHARED_DIR, 'vectors');
const GIVEN = process.env['POUCHPROOF_VECTORS'];

export const VECTORS_DIR: string = (() => {
  const dir = GIVEN ?? BESIDE;
  if (!existsSync(join(dir, 'README.md'))) {
    throw new Error(`test vectors not found at ${dir} (${GIVEN ? 'POUCHPROOF_VECTORS' : 'expected ../shared/vectors beside the repository'})`);
  }
  return dir;
})();

export function vectorText(rel: string): string {
  return readFileSync(join(VECTORS_DIR, rel), 'utf8');
}
export function vectorBytes(rel: string): Buffer {
  return readFileSync(join(VECTORS_DIR, rel));
}
export function vectorJson<T>(rel: string): T {
  return JSON.parse(vectorText(rel)) as T;
}
