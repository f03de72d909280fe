/**
 * `npm run bench`: runs every `bench/*.bench.ts` in turn (or those named on the command line) and
 * prints their figures. Benchmarks are not tests: they print, they never fail a build.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();
for (const f of files) {
  console.log(`\n=== ${f.replace('.bench.ts', '')} ===`);
  const mod = (await import(pathToFileURL(join(here, f)).href)) as { run?: () => Promise<void> };
  if (mod.run) await mod.run();
}
