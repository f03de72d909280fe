/**
 * Which properties a session runs: the catalogue (properties/index.ts), or the caller's list, which
 * may add properties of their own made with `defineProperty` beside it; then `--only` and `--exclude` globs.
 */
import type { Property } from '../check/property.ts';
import { selectProperties } from '../check/run/index.ts';
import { UsageError } from './usage-error.ts';

/** Every property of the catalogue, loaded on first use (the reference and the CLI start without it). */
export async function loadAllProperties(): Promise<readonly Property[]> {
  const mod = (await import('../../properties/index.ts'));
  return mod.ALL_PROPERTIES;
}

/** The properties a session runs: `given` (default the catalogue), narrowed by `only`; an id twice, or globs matching nothing, are bad input. */
export async function propertiesFor(given: readonly Property[] | undefined, only: readonly string[] | undefined, exclude?: readonly string[]): Promise<readonly Property[]> {
  const all = given ?? (await loadAllProperties());
  const ids = new Set<string>();
  for (const p of all) {
    if (ids.has(p.id)) throw new UsageError(`two properties share the id ${p.id}: give each of your own properties an id of its own`);
    ids.add(p.id);
  }
  if (only && selectProperties(all, [...only]).length === 0) throw new UsageError(`--only ${only.join(',')} matches no property; see pouchproof list`);
  if (exclude?.length && selectProperties(all, only ? [...only] : undefined, exclude).length === 0) throw new UsageError(`--exclude ${exclude.join(',')} leaves no property to run; see pouchproof list`);
  return all;
}
