/**
 * The readings zoo as tests (the share of the cases given by `part`): against the reference in every
 * alternative reading alone and in seeded combinations, over one seed in CI (two under `npm run test:sweep`,
 * five with POUCHPROOF_ZOO_SEEDS=5), the default suite raises
 * no finding but assumption findings (and skips for what the profile lacks), and told the readings
 * (`--assume`) it raises no finding at all; in both, every property runs its planned cases to a pass
 * (src/check/clean-run.ts). Split over files so vitest runs them in parallel.
 */
import { describe, expect, it } from 'vitest';
import { ALL_PROPERTIES } from '../../properties/index.ts';
import { runZooCase, zooCases, type ZooMode } from './readings-zoo.ts';
import { seedCount } from '../sweep.ts';

/**
 * One seed in CI, two in the sweep (test/sweep.ts). The first seed's run holds the coverage phase,
 * every variant of every constraint whatever the seed, where a reading decides most; a further seed
 * adds only RUNS random cases per property (a seed's run without coverage takes about a quarter of one with it).
 */
export const ZOO_SEEDS = seedsFrom(1, seedCount('POUCHPROOF_ZOO_SEEDS', { ci: 1, sweep: 2 }));
/**
 * The seeds test/precision/zoo-histories.test.ts gives its three properties: the next ones after the
 * zoo's, so that those properties, which the zoo's whole-suite runs judge on ZOO_SEEDS, get as many
 * seeds again (before, both files ran the same seeds, the same cases twice).
 */
export const HISTORY_SEEDS = seedsFrom(ZOO_SEEDS.length + 1, ZOO_SEEDS.length);

function seedsFrom(first: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => first + i);
}
/**
 * The suite of the zoo: every property but the cost probe, a timing measurement of ~1 s that reads
 * nothing the readings change; its silence in every alternative reading (told) and over repetitions
 * is tested once each in test/properties/performance.test.ts, instead of 420 times here. Nor the
 * largest commit (~35 MB, seconds a run), which reads no reading the zoo switches but
 * pouch-existence, which its control covers; its silence in every reading is tested once each in
 * test/properties/largest-body.test.ts.
 */
const ZOO_PROPERTIES = ALL_PROPERTIES.filter((p) => p.id !== 'performance.cost-growth' && p.id !== 'robustness.largest-body-accepted');
/** Cases per property in the zoo's runs: each run is a whole suite, 2 × 5 seeds per reading. */
const RUNS = 2;
export const ZOO_CASES = zooCases({ combos: 6, seed: 20261123 });

export function zooPart(part: number, parts: number): void {
  const mine = ZOO_CASES.filter((_, i) => i % parts === part);
  describe(`readings zoo, part ${part + 1} of ${parts}`, () => {
    for (const c of mine) {
      for (const mode of ['default', 'assume'] as ZooMode[]) {
        it(`${mode === 'assume' ? 'told' : 'not told'} ${c.label}: ${mode === 'assume' ? 'no finding at all' : 'no finding but assumption findings'}`, async () => {
          for (const seed of ZOO_SEEDS) {
            // The coverage phase does not depend on the seed: judged once per reading and mode, with the first seed.
            const r = await runZooCase(ZOO_PROPERTIES, c, mode, { seed, runs: RUNS, coverage: seed === ZOO_SEEDS[0] });
            expect(r.falseAlarms.map((f) => `${f.kind} ${f.property} ${f.assumption ?? ''}: ${f.message}`), `seed ${seed}`).toEqual([]);
            expect(r.requests).toBeGreaterThan(100);
          }
        }, 120_000);
      }
    }
  });
}
