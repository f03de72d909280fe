/**
 * A reading the probe left unidentified is a guess, and a guess may be wrong. A violation stands
 * through an unidentified reading its judgement declares it does not read (`Judgement.reads`), and a
 * steering reading proven by an accepted request (`STEERING`) leaves the verdict alone. The readings
 * zoo (test/precision/zoo.ts) guesses each such reading wrong on purpose: the reference serves an
 * alternative, the run guesses the registry default and knows it is a guess, and the properties whose
 * violations would stand through it must find no violation and no server error. A declaration too
 * narrow fails there.
 *
 * Which readings, and which properties, come from the declarations: a reading is guessed when some
 * violation judgement with a declared list leaves it out, and each guess runs the properties that hold
 * such a judgement (a steering reading runs them all). Reading-free judgements (`reads: []`) are left
 * to test/precision/unnamed.test.ts, which serves behaviours no reading names at all.
 */
import type { Judgement, Property } from '../../src/check/property.ts';
import { STEERING } from '../../src/check/run/context.ts';
import { isFailing, type PropertyResult } from '../../src/check/run/index.ts';
import { ASSUMPTIONS, DEFAULT_ASSUMPTIONS, hasAlternatives, readingsOf, type AssumptionName } from '../../src/spec/index.ts';
import { WITHOUT_COST_PROBE } from '../check/cost-probe-apart.ts';

/** A judgement that can raise a violation, with a declared list its violations stand outside of. */
const standsOutside = (j: Judgement, n: AssumptionName): boolean => (j.ground.kind === 'spec' || j.ground.kind === 'constraint') && j.reads.length > 0 && !j.reads.includes(n);

/**
 * The properties a wrong guess at `n` could cry wolf in: all of them for a steering reading. Without
 * the cost probe (test/check/cost-probe-apart.ts): it judges a latency beside other workers, and
 * never raises a violation.
 */
export function exposedTo(n: AssumptionName): readonly Property[] {
  return STEERING.has(n) ? WITHOUT_COST_PROBE : WITHOUT_COST_PROBE.filter((p) => p.judgements.some((j) => standsOutside(j, n)));
}

/** The readings the server decides that some declaration leaves out (or that steer requests). */
export const GUESSED: readonly AssumptionName[] = ASSUMPTIONS.filter((a) => a.decidedBy === 'server' && hasAlternatives(a.name) && exposedTo(a.name).length > 0).map((a) => a.name);

/** Each alternative of each guessed reading: served while the run guesses the default. */
export const WRONG: readonly (readonly [AssumptionName, string])[] = GUESSED.flatMap((n) => readingsOf(n).filter((v) => v !== DEFAULT_ASSUMPTIONS[n]).map((v) => [n, v] as const));

/** The reading a single-reading case serves wrongly to a run that guesses the default, if it is one to guess. */
export function wrongGuessOf(readings: Readonly<Record<string, string>>): AssumptionName | undefined {
  const entries = Object.entries(readings);
  if (entries.length !== 1) return undefined;
  const [name, value] = entries[0]!;
  return WRONG.find(([n, v]) => n === name && v === value)?.[0];
}

/** What a run that must stay green never gives (a violation, a server error or a crash), one line each: a wrong guess, the zoo under the nemesis. */
export function failingLines(results: readonly PropertyResult[]): string[] {
  return results.flatMap((p) => p.findings.filter((f) => isFailing(f.kind)).map((f) => `${p.id} ${f.kind}: ${f.message.slice(0, 300)}`));
}
