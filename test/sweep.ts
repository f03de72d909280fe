/**
 * How many seeds the many-seed files run: CI's (`npm test`, `npm run test:full`) where one seed
 * already decides what a file claims, or the full sweep under `npm run test:sweep`
 * (POUCHPROOF_SWEEP=1), which keeps the counts CI ran before it was halved (docs/CONTRIBUTING.md,
 * "The sweep"). A file's own variable (POUCHPROOF_ZOO_SEEDS=5) overrides both.
 */
export const SWEEP = process.env.POUCHPROOF_SWEEP === '1';

/** The seed count of a sweep: the variable's value when set, else CI's count or the sweep's. */
export function seedCount(variable: string, o: { readonly ci: number; readonly sweep: number }): number {
  const set = Number(process.env[variable]);
  return Number.isInteger(set) && set >= 1 ? set : SWEEP ? o.sweep : o.ci;
}
