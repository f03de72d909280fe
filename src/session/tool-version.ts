/** pouchproof's own version, for reports and `--version`-like lines. */
import { readFileSync } from 'node:fs';

/** The version in pouchproof's package.json: the nearest one up named pouchproof (the sources and the built `dist/` sit at different depths). */
export function toolVersion(): string {
  for (let dir = new URL('.', import.meta.url); ; ) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'pouchproof') return pkg.version ?? '0.0.0';
    } catch {
      // no package.json here: look further up
    }
    const up = new URL('..', dir);
    if (up.href === dir.href) return '0.0.0';
    dir = up;
  }
}
