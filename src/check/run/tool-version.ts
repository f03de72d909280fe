/**
 * pouchproof's own version, for reports, replay tokens and `--version`. Here, under the run, so that
 * the replay tokens the run writes can carry it; the session re-exports it.
 */
import { readFileSync } from 'node:fs';
import { isRecord, parseJson } from '../../spec/index.ts';

let cached: string | undefined;

/** The version in pouchproof's package.json: the nearest one up named pouchproof (the sources and the built `dist/` sit at different depths). Read once. */
export function toolVersion(): string {
  cached ??= readVersion();
  return cached;
}

function readVersion(): string {
  for (let dir = new URL('.', import.meta.url); ; ) {
    try {
      const pkg = parseJson(readFileSync(new URL('package.json', dir), 'utf8'));
      if (isRecord(pkg) && pkg['name'] === 'pouchproof') return typeof pkg['version'] === 'string' ? pkg['version'] : '0.0.0';
    } catch {
      // no package.json here: look further up
    }
    const up = new URL('..', dir);
    if (up.href === dir.href) return '0.0.0';
    dir = up;
  }
}
