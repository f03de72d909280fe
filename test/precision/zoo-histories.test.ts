/**
 * The readings zoo for the concurrency and isolation properties (races.linearizable,
 * races.one-winner, auth.cross-account) alone, with more cases than the whole-suite zoo gives
 * them: against the reference in every alternative reading and the zoo's combinations, on the seeds
 * after the zoo's own (HISTORY_SEEDS: one in CI, two in the sweep), not told the readings they raise
 * nothing but assumption findings, told them nothing at all.
 */
import { describe, expect, it } from 'vitest';
import { ALL_PROPERTIES } from '../../properties/index.ts';
import { runZooCase, type ZooMode } from './readings-zoo.ts';
import { HISTORY_SEEDS, ZOO_CASES } from './zoo.ts';

const IDS = ['races.linearizable', 'races.one-winner', 'auth.cross-account'];
const PROPS = ALL_PROPERTIES.filter((p) => IDS.includes(p.id));

describe('readings zoo: concurrent histories and cross-account isolation', () => {
  it('covers the three properties', () => expect(PROPS.map((p) => p.id).sort()).toEqual([...IDS].sort()));
  for (const c of ZOO_CASES) {
    it(`${c.label}: no false alarm, told or not`, async () => {
      for (const mode of ['default', 'assume'] as ZooMode[]) {
        for (const seed of HISTORY_SEEDS) {
          const r = await runZooCase(PROPS, c, mode, { seed, runs: 2 });
          expect(r.falseAlarms.map((f) => `${f.kind} ${f.property} ${f.assumption ?? ''}: ${f.message}`), `${mode}, seed ${seed}`).toEqual([]);
        }
      }
    }, 120_000);
  }
});
