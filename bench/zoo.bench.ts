/**
 * `npm run bench zoo`: the readings zoo at 5 cases per property — the suite against the
 * reference in every alternative reading alone and in seeded combinations, over five seeds, not
 * told (assumption findings allowed) and told (`--assume` the readings: no finding at all).
 * Prints runs, false alarms (target 0) and time. The test suite runs the same zoo with fewer cases.
 */
import { runZooCase, zooCases, type ZooMode } from '../test/precision/readings-zoo.ts';

import { ALL_PROPERTIES } from '../properties/index.ts';

const SEEDS = [1, 2, 3, 4, 5];
// 5 cases per property keep the zoo (530 suite runs) near ten minutes; BENCH_ZOO_RUNS raises it.
const RUNS = Number(process.env.BENCH_ZOO_RUNS ?? 5);

export async function run(): Promise<void> {
  const cases = zooCases({ combos: 6, seed: 20261123 });
  const started = Date.now();
  let runs = 0;
  let requests = 0;
  let assumptionFindings = 0;
  const alarms: string[] = [];
  for (const c of cases) {
    for (const mode of ['default', 'assume'] as ZooMode[]) {
      for (const seed of SEEDS) {
        const r = await runZooCase(ALL_PROPERTIES, c, mode, { seed, runs: RUNS, coverage: seed === SEEDS[0] });
        runs++;
        requests += r.requests;
        assumptionFindings += r.assumptionFindings;
        for (const f of r.falseAlarms) alarms.push(`${mode} ${c.label} seed ${seed}: ${f.kind} ${f.property} ${f.message.slice(0, 160)}`);
      }
    }
  }
  const secs = (Date.now() - started) / 1000;
  console.log(`readings zoo: ${cases.length} cases (${cases.length - 6} readings alone, 6 combinations) × 2 modes × ${SEEDS.length} seeds, ${RUNS} runs per property`);
  console.log(`  suite runs         ${runs}`);
  console.log(`  requests           ${requests}`);
  console.log(`  assumption findings (not told; allowed) ${assumptionFindings}`);
  console.log(`  false alarms       ${alarms.length}   (target 0)`);
  for (const a of alarms.slice(0, 20)) console.log(`    ${a}`);
  console.log(`  time               ${secs.toFixed(1)} s (${(secs / runs).toFixed(2)} s per suite run)`);
}
