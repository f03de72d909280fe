/**
 * A reading the probe left unidentified is a guess, and a guess may be wrong. A violation stands
 * through an unidentified reading its judgement declares it does not read (`Judgement.reads`), and a
 * steering reading proven by an accepted request (`STEERING`) leaves the verdict alone: here each
 * such reading is guessed wrong on purpose (the reference serves another reading, the run guesses
 * the registry default and knows it is a guess), and the properties whose violations would stand
 * through it must find no violation and no server error. A declaration too narrow fails here.
 *
 * Which readings, and which properties, come from the declarations: a reading is guessed when some
 * violation judgement with a declared list leaves it out, and each guess runs the properties that hold
 * such a judgement (a steering reading runs them all). Reading-free judgements (`reads: []`) are left
 * to test/precision/unnamed.test.ts, which serves behaviours no reading names at all. Every alternative
 * of every such reading is served: 39 runs of 16 to 38 properties (the cost probe left out), 322 s at load average 7–8 (2 min of
 * CPU time), so a quiet machine stays well under four minutes.
 */
import { describe, expect, it } from 'vitest';
import { WITHOUT_COST_PROBE } from '../check/cost-probe-apart.ts';
import type { Judgement, Property } from '../../src/check/property.ts';
import { STEERING } from '../../src/check/run/context.ts';
import { runProperties } from '../../src/check/run/index.ts';
import { openTarget } from '../../src/session/index.ts';
import { ASSUMPTIONS, DEFAULT_ASSUMPTIONS, hasAlternatives, readingsOf, type AssumptionName, type Readings } from '../../src/spec/index.ts';

/** Cases per property: the coverage phase runs whatever this is, and 5 random cases stay above every property's floor on the correct reference. */
const RUNS = 5;

/** A judgement that can raise a violation, with a declared list its violations stand outside of. */
const standsOutside = (j: Judgement, n: AssumptionName): boolean => (j.ground.kind === 'spec' || j.ground.kind === 'constraint') && j.reads.length > 0 && !j.reads.includes(n);


/**
 * The properties a wrong guess at `n` could cry wolf in: all of them for a steering reading. Without
 * the cost probe (test/check/cost-probe-apart.ts): it judges a latency beside a second worker, and
 * never raises a violation.
 */
function exposedTo(n: AssumptionName): readonly Property[] {
  return STEERING.has(n) ? WITHOUT_COST_PROBE : WITHOUT_COST_PROBE.filter((p) => p.judgements.some((j) => standsOutside(j, n)));
}

const GUESSED = ASSUMPTIONS.filter((a) => a.decidedBy === 'server' && hasAlternatives(a.name) && exposedTo(a.name).length > 0).map((a) => a.name);
const WRONG = GUESSED.flatMap((n) => readingsOf(n).filter((v) => v !== DEFAULT_ASSUMPTIONS[n]).map((v) => [n, v] as const));

describe('a reading guessed wrong while the run knows it is a guess', () => {
  it('guesses every reading some declared violation judgement leaves out, and the steering ones', () => {
    for (const n of STEERING.keys()) expect(GUESSED).toContain(n);
    // Derived, not listed: the answer-only readings (left out by every refusal judgement) and the signing ones (left out by the commit laws).
    for (const n of ['batch-atomicity', 'usage-stored-meaning', 'canonical-json', 'kid-binding', 'empty-lists'] as const) expect(GUESSED).toContain(n);
    expect(WRONG.length).toBeGreaterThan(GUESSED.length);
  });

  it.each(WRONG)('%s served as %s, guessed as the default: no violation, no server error', async (name, served) => {
    const props = exposedTo(name);
    const t = await openTarget({}, { readings: { [name]: served } as Readings });
    try {
      const profile = { ...t.profile, assumptions: { ...t.profile.assumptions, [name]: DEFAULT_ASSUMPTIONS[name] } };
      const run = await runProperties(profile, props, { seed: 4117, runs: RUNS, embedded: true, unknownReadings: new Map([[name, 'the probe could not tell']]) });
      const failing = run.results.flatMap((p) => p.findings.filter((f) => f.kind === 'violation' || f.kind === 'server-error' || f.kind === 'crash').map((f) => `${p.id} ${f.kind}: ${f.message.slice(0, 300)}`));
      expect(failing).toEqual([]);
      // The run still judged something: a guess that switched everything off would pass this vacuously.
      const passed = run.results.filter((p) => p.status === 'passed').length;
      expect(passed, `${passed} of ${props.length} properties passed`).toBeGreaterThanOrEqual(Math.ceil(props.length / 3));
    } finally {
      await t.close();
    }
  }, 300_000);
});
