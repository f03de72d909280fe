/**
 * The suite against the reference's named faults: every fault is killed — by the conformance
 * suite, or by a load check for the faults only load can see — by at least one of the killers its
 * catalogue entry expects, and the correct reference's runs are clean over CLEAN_SEEDS seeds at the
 * default number of cases: no finding of any kind but an expected skip, every property run to its
 * planned cases (src/check/clean-run.ts). Runtime is bounded: each fault's run stops at its own detection.
 * Without the cost probe and its faults, nor the latency load checks and the faults only they see:
 * this file runs beside other test workers, where latency is not judged; the timed group kills them
 * (test/check/cost-probe-apart.ts).
 */
import { describe, expect, it } from 'vitest';
import { compareKillers, runMutants } from '../../src/mutants/mutants.ts';
import { FAULTS } from '../../src/reference/index.ts';
import { resolveTarget } from '../../src/target/resolve.ts';
import { LOAD_CHECKS } from '../../scenarios/checks.ts';
import { FAULTS_BESIDE_A_WORKER, LATENCY_LOAD_CHECKS, WITHOUT_COST_PROBE } from './cost-probe-apart.ts';
import { EMBEDDED_REFERENCE } from '../../src/reference/embedded.ts';
import { seedCount } from '../sweep.ts';
import { mutantsExitCode } from '../../src/check/run/index.ts';

/**
 * Clean runs of the correct reference: one in CI, five in the sweep (test/sweep.ts). The first holds
 * the coverage phase, the same whatever the seed, and 25 random cases per property; a further seed
 * adds only 25 more random cases per property, at ~3/4 of the first one's cost. In CI that random-case
 * evidence on the correct reference is bought elsewhere: side-by-side.test.ts runs the same suite on
 * it twice more on its own seed (exit 0, each verdict alike), the unnamed sessions run it nine times
 * on the reference with one unnamed choice beside (no violation, no server error), and the readings
 * zoo holds it to this clean standard in 44 more readings: every property not told, and told, every
 * property those readings reach (test/precision/zoo.ts).
 */
const CLEAN_SEEDS = seedCount('POUCHPROOF_MUTANT_SEEDS', { ci: 1, sweep: 5 });

/** The load checks judged here: not the latency ones, which the timed group judges (test/load/latency-killers.test.ts). */
const CHECKS = Object.fromEntries(Object.entries(LOAD_CHECKS).filter(([k]) => !LATENCY_LOAD_CHECKS.includes(k)));

const embedded = (faults: readonly string[]) => resolveTarget({ kind: 'embedded', faults }, EMBEDDED_REFERENCE);

describe('mutants', () => {
  it(`kills every fault but the cost faults and finds nothing in the correct reference over ${CLEAN_SEEDS} seeds`, async () => {
    const r = await runMutants(WITHOUT_COST_PROBE, FAULTS_BESIDE_A_WORKER, embedded, { seed: 1234, runs: 25, seeds: CLEAN_SEEDS, perPropertyMs: 45_000, loadChecks: CHECKS });
    expect(r.faults.filter((f) => !f.ran).map((f) => f.fault)).toEqual([]);
    const survivors = r.faults.filter((f) => !f.killed).map((f) => f.fault);
    const falseFindings = r.clean.flatMap((c) => c.falseFindings.map((x) => `${c.loadCheck ?? `seed ${c.seed}`} ${x.property} ${x.kind}: ${x.message}`));
    expect(survivors, `survivors: ${survivors.join(', ')}`).toEqual([]);
    expect(falseFindings, falseFindings.join('\n')).toEqual([]);
    // Each fault falls to one of the killers its catalogue entry names (a kill elsewhere says the entry is wrong).
    const offTarget = r.faults.filter((f) => f.killed && !compareKillers(f).asExpected).map((f) => `${f.fault}: expected ${f.expectedKillers.join(', ')}, killed by ${f.killedBy.join(', ')}`);
    expect(offTarget).toEqual([]);
    expect(r.unexpectedlyKilled).toEqual([]);
    expect(r.expected).toBe(FAULTS_BESIDE_A_WORKER.length);
    expect(r.killed).toBe(FAULTS_BESIDE_A_WORKER.length);
    // A fault departing from a registry reading is caught as that reading's mismatch, never as a violation.
    for (const f of r.faults) {
      const info = FAULTS.find((x) => x.name === f.fault)!;
      if (info.deviatesFrom) expect(f.kills.every((k) => k.kind === 'assumption' && k.assumption === info.deviatesFrom), f.fault).toBe(true);
    }
    expect(r.clean.filter((c) => !c.loadCheck)).toHaveLength(CLEAN_SEEDS);
    expect(r.clean.filter((c) => c.loadCheck).map((c) => c.loadCheck).sort()).toEqual(Object.keys(CHECKS).sort());
    expect(mutantsExitCode(r)).toBe(0);
  }, 600_000);
});
