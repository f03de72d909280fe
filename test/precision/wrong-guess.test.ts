/**
 * A reading the probe left unidentified is a guess, and a guess may be wrong. Judgements that declare
 * they do not read it (`ANSWER_READINGS` for a refused valid request) and steering readings proven by
 * an accepted request (`STEERING`) keep their verdicts under such a reading: here each is guessed
 * wrong on purpose (the reference serves another reading, the run guesses the registry default and
 * knows it is a guess), and the whole suite must find no violation and no server error.
 */
import { describe, expect, it } from 'vitest';
import { ALL_PROPERTIES } from '../../properties/index.ts';
import { ANSWER_READINGS } from '../../src/check/judge/judgements.ts';
import { STEERING } from '../../src/check/run/context.ts';
import { runProperties } from '../../src/check/run/index.ts';
import { openTarget } from '../../src/session/index.ts';
import { DEFAULT_ASSUMPTIONS, readingsOf, type AssumptionName, type Readings } from '../../src/spec/index.ts';

const GUESSED = [...new Set<AssumptionName>([...ANSWER_READINGS, ...STEERING.keys()])];
const WRONG = GUESSED.flatMap((n) => readingsOf(n).filter((v) => v !== DEFAULT_ASSUMPTIONS[n]).map((v) => [n, v] as const));

describe('a reading guessed wrong while the run knows it is a guess', () => {
  it('has something to guess wrong for every such reading with an alternative', () => {
    expect(WRONG.length).toBeGreaterThanOrEqual(6);
  });

  it.each(WRONG)('%s served as %s, guessed as the default: no violation, no server error', async (name, served) => {
    const t = await openTarget({}, { readings: { [name]: served } as Readings });
    try {
      const profile = { ...t.profile, assumptions: { ...t.profile.assumptions, [name]: DEFAULT_ASSUMPTIONS[name] } };
      const run = await runProperties(profile, ALL_PROPERTIES, { seed: 4117, runs: 10, embedded: true, unknownReadings: new Map([[name, 'the probe could not tell']]) });
      const failing = run.results.flatMap((p) => p.findings.filter((f) => f.kind === 'violation' || f.kind === 'server-error' || f.kind === 'crash').map((f) => `${p.id} ${f.kind}: ${f.message.slice(0, 300)}`));
      expect(failing).toEqual([]);
      // The run still judged something: a guess that switched everything off would pass this vacuously.
      expect(run.results.filter((p) => p.status === 'passed').length).toBeGreaterThan(10);
    } finally {
      await t.close();
    }
  }, 300_000);
});
