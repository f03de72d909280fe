/** Locates the shared test vectors (see /work/shared/vectors/README.md). */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const CANDIDATES = [process.env['POUCHPROOF_VECTORS'], join(import.meta.dirname, '../../vectors'), '/work/shared/vectors'];

export const VECTORS_DIR: string = (() => {
  const dir = CANDIDATES.find((d): d is string => d !== undefined && existsSync(join(d, 'README.md')));
  if (!dir) throw new Error('test vectors not found: set POUCHPROOF_VECTORS to the vectors directory');
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
