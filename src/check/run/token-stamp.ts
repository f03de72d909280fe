/**
 * What a replay token carries so that it can be checked later (token-fit.ts): the readings in force,
 * and a fingerprint of its cases. The fingerprint of a coverage token is the property's coverage case
 * list (constraint, side and variant of each, in order); that of a random token is the case its seed
 * draws at its path's root, the one fast-check shrinks from.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { DEFAULT_ASSUMPTIONS } from '../../spec/index.ts';
import type { CoverageCase } from '../property.ts';
import type { CaseName, ReplayToken } from './replay-token.ts';

const digest = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);

/** The readings in force, as a token carries them: those that differ from the registry's defaults, and a digest of all. */
export function readingsStamp(readings: Readonly<Record<string, string>>): NonNullable<ReplayToken['readings']> {
  const names = Object.keys(readings).sort();
  const defaults: Readonly<Record<string, string>> = DEFAULT_ASSUMPTIONS;
  const differ = Object.fromEntries(names.filter((n) => readings[n] !== defaults[n]).map((n) => [n, readings[n]]));
  return { differ, digest: digest(JSON.stringify(names.map((n) => [n, readings[n]]))) };
}

export const caseNameOf = (c: Pick<CoverageCase<unknown>, 'constraint' | 'side' | 'variant'>): CaseName => ({ constraint: c.constraint, side: c.side, variant: c.variant });

/** The fingerprint of a property's coverage case list. */
export function coverageInventory(cases: readonly Pick<CoverageCase<unknown>, 'constraint' | 'side' | 'variant'>[]): string {
  return digest(JSON.stringify(cases.map((c) => [c.constraint, c.side, c.variant])));
}

/** The fingerprint of the case `seed` draws at `path`'s root (the case fast-check shrinks from). */
export function drawnInventory(arb: fc.Arbitrary<unknown>, seed: number, path: string): string {
  const root = Number(path.split(':')[0]);
  // Walked to its place without generating the cases before it (src/check/run/draws.ts).
  const drawn = fc.sample(arb, { seed, path: String(root), numRuns: 1 })[0];
  return digest(stableText(drawn, new WeakSet()));
}

/** A value as text, the same for the same value whatever its key order (bigints, bytes, maps included). */
function stableText(v: unknown, seen: WeakSet<object>): string {
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v !== 'object' || v === null) return typeof v === 'function' ? 'fn' : (JSON.stringify(v) ?? String(v));
  if (seen.has(v)) return '~';
  seen.add(v);
  if (ArrayBuffer.isView(v)) return `bytes:${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`;
  if (Array.isArray(v)) return `[${v.map((x) => stableText(x, seen)).join(',')}]`;
  if (v instanceof Map) return `map{${[...v.entries()].map(([k, x]) => `${stableText(k, seen)}:${stableText(x, seen)}`).join(',')}}`;
  if (v instanceof Set) return `set{${[...v].map((x) => stableText(x, seen)).join(',')}}`;
  const byKey = Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${byKey.map(([k, x]) => `${JSON.stringify(k)}:${stableText(x, seen)}`).join(',')}}`;
}

