/**
 * The readings zoo as tests (the share of the cases given by `part`): against the reference in every
 * alternative reading alone and in seeded combinations, over one seed in CI (two under `npm run test:sweep`,
 * five with POUCHPROOF_ZOO_SEEDS=5), the default suite raises
 * no finding but assumption findings (and skips for what the profile lacks), and told the readings
 * (`--assume`) it raises no finding at all (the told run holds only the properties the readings can
 * reach: `toldProperties`); in both, every property runs its planned cases to a pass
 * (src/check/clean-run.ts). Split over files so vitest runs them in parallel.
 */
import { describe, expect, it } from 'vitest';
import { ALL_PROPERTIES } from '../../properties/index.ts';
import type { CleanProblem } from '../../src/check/clean-run.ts';
import type { Property } from '../../src/check/property.ts';
import type { PropertyResult } from '../../src/check/run/index.ts';
import { recordConsults, type ConsultRecord } from './consulted.ts';
import { runZooCase, zooCases, type ZooCase } from './readings-zoo.ts';
import { seedCount } from '../sweep.ts';
import { exposedTo, failingLines, wrongGuessOf } from './guesses.ts';

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
export const ZOO_PROPERTIES = ALL_PROPERTIES.filter((p) => p.id !== 'performance.cost-growth' && p.id !== 'robustness.largest-body-accepted');
/** Cases per property in the zoo's runs: each run is a whole suite, 2 × 5 seeds per reading. */
const RUNS = 2;
export const ZOO_CASES = zooCases({ combos: 6, seed: 20261123 });

export function zooPart(part: number, parts: number): void {
  const mine = ZOO_CASES.filter((_, i) => i % parts === part);
  describe(`readings zoo, part ${part + 1} of ${parts}`, () => {
    for (const c of mine) {
      // One test per case, both runs in it: the told run needs the record of the not-told one, whatever worker runs it.
      const guessed = wrongGuessOf(c.readings) ? '; guessed, no violation' : '';
      it(`${c.label}: not told, no finding but assumption findings; told, no finding at all${guessed}`, async () => {
        for (const seed of ZOO_SEEDS) {
          // The coverage phase does not depend on the seed: judged once per reading and mode, with the first seed.
          const o = { seed, runs: RUNS, coverage: seed === ZOO_SEEDS[0] };
          const record = recordConsults(ZOO_PROPERTIES);
          const notTold = await runZooCase(record.props, c, 'default', o);
          expect(notTold.falseAlarms.map(alarmLine), `not told, seed ${seed}`).toEqual([]);
          expect(notTold.requests).toBeGreaterThan(100);
          const reach = toldProperties(record, c, notTold.results);
          const told = await runZooCase(reach, c, 'assume', o);
          expect(told.falseAlarms.map(alarmLine), `told, seed ${seed}`).toEqual([]);
          // None reached (a reading only the reference reads): the told run sends nothing, its not-told twin was all of it.
          expect(told.requests > 0, `told, seed ${seed}: ${reach.length} properties`).toBe(reach.length > 0);
          await guessedWrong(record, c, notTold.results, o);
        }
      }, 240_000);
    }
  });
}

const alarmLine = (f: CleanProblem): string => `${f.kind} ${f.property} ${f.assumption ?? ''}: ${f.message}`;

/**
 * The told run's properties: those that consulted one of the case's readings in the not-told run,
 * and any that did not end it passed without a finding. The two runs differ only in those readings'
 * values, on the same seed, so any other property sends the same requests and judges them the same
 * way told or not: its told run would repeat a clean not-told run the same test has just judged.
 */
export function toldProperties(record: ConsultRecord, c: ZooCase, notTold: readonly PropertyResult[]): Property[] {
  return runAgain(record, ZOO_PROPERTIES, Object.keys(c.readings), notTold);
}

/**
 * Of `candidates`, those a run that changes only `readings` (their values, or whether they are known)
 * must run again after the not-told run on the same seed: the ones that consulted one of them, and any
 * that did not end the not-told run passed without a finding. Every candidate when the record holds
 * nothing at all (the recording broke: every property reads some reading).
 */
function runAgain(record: ConsultRecord, candidates: readonly Property[], readings: readonly string[], notTold: readonly PropertyResult[]): Property[] {
  if (ZOO_PROPERTIES.every((p) => record.readingsOf(p.id).size === 0)) return [...candidates];
  const clean = new Set(notTold.filter((r) => r.status === 'passed' && r.findings.length === 0).map((r) => r.id));
  return candidates.filter((p) => !clean.has(p.id) || [...record.readingsOf(p.id)].some((n) => readings.includes(n)));
}

/**
 * A single-reading case whose reading is one to guess (test/precision/guesses.ts): run again knowing
 * the default is a guess; no violation, no server error. Only the exposed properties `runAgain` names
 * run: the guess changes a case's verdict only through what the case consulted
 * (src/check/run/case-runner.ts `restingOnUnknown`), so any other would repeat, same seed, a not-told
 * run that raised nothing. Those left out count among the passes, which must be a third of the
 * exposed: a guess that switched everything off would pass vacuously.
 */
async function guessedWrong(record: ConsultRecord, c: ZooCase, notTold: readonly PropertyResult[], o: { readonly seed: number; readonly runs: number; readonly coverage: boolean }): Promise<void> {
  const n = wrongGuessOf(c.readings);
  if (!n) return;
  const exposed = exposedTo(n);
  const again = runAgain(record, exposed, [n], notTold);
  const run = await runZooCase(again, c, 'default', { ...o, unknownReadings: new Map([[n, 'the probe could not tell']]) });
  expect(failingLines(run.results), `guessed ${n}, seed ${o.seed}`).toEqual([]);
  const passed = run.results.filter((r) => r.status === 'passed').length + (exposed.length - again.length);
  expect(passed, `guessed ${n}: ${passed} of ${exposed.length} exposed properties passed (${again.length} ran again)`).toBeGreaterThanOrEqual(Math.ceil(exposed.length / 3));
}
