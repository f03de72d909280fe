/** The README's example scenario compiled to JavaScript, as docs/load.md tells a user to for the image (no TypeScript in the pods). */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../repo-paths.ts';

export const EXAMPLE = 'examples/mixed-commits.ts';

/** Writes examples/mixed-commits.js into `dir/scenarios` (no package.json, no node_modules: as a ConfigMap mounts it) and returns its path. */
export function compiledExample(dir: string): string {
  const out = ts.transpileModule(readFileSync(join(REPO_ROOT, EXAMPLE), 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  mkdirSync(join(dir, 'scenarios'), { recursive: true });
  const file = join(dir, 'scenarios', 'mixed-commits.js');
  writeFileSync(file, out.outputText);
  return file;
}
