/**
 * Where the tests find the repository and what CI lays beside it: `../shared` (SPEC.md and the test
 * vectors) next to the repository root, on every machine. Never a machine's absolute path.
 */
import { join } from 'node:path';

export const REPO_ROOT = join(import.meta.dirname, '..');
export const SHARED_DIR = join(REPO_ROOT, '..', 'shared');
export const SPEC_PATH = join(SHARED_DIR, 'SPEC.md');
