#!/usr/bin/env node
// The installed package runs the JavaScript tsc built into dist/. A clone without a build (or with
// POUCHPROOF_FROM_SOURCE=1, which the test suite sets so a stale build is never what it tests) runs
// the TypeScript sources through tsx, a dev dependency, so `npm ci && npm start` needs no build step.
import { existsSync } from 'node:fs';

const built = new URL('../dist/src/cli/main.js', import.meta.url);
const fromSource = process.env.POUCHPROOF_FROM_SOURCE === '1' || !existsSync(built);
if (fromSource) {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    process.stderr.write('pouchproof: no build in dist/ and tsx is not installed: run `npm run build` (or `npm ci` for the dev dependencies)\n');
    process.exit(2);
  }
  register();
}
const { main } = await import(fromSource ? '../src/cli/main.ts' : built.href);
await main();
