/**
 * Wrong guesses (test/precision/guesses.ts) are served in the readings zoo's single-reading cases
 * (test/precision/zoo.ts): here, that the guessed set is what the declarations say, and that every
 * wrong guess is a case the zoo runs, so none goes untried.
 */
import { describe, expect, it } from 'vitest';
import { STEERING } from '../../src/check/run/context.ts';
import { GUESSED, WRONG, wrongGuessOf } from './guesses.ts';
import { ZOO_CASES } from './zoo.ts';

describe('a reading guessed wrong while the run knows it is a guess', () => {
  it('guesses every reading some declared violation judgement leaves out, and the steering ones', () => {
    for (const n of STEERING.keys()) expect(GUESSED).toContain(n);
    // Derived, not listed: the answer-only readings (left out by every refusal judgement) and the signing ones (left out by the commit laws).
    for (const n of ['batch-atomicity', 'usage-stored-meaning', 'canonical-json', 'kid-binding', 'empty-lists'] as const) expect(GUESSED).toContain(n);
    expect(WRONG.length).toBeGreaterThan(GUESSED.length);
  });

  it('serves every wrong guess as a case of the readings zoo, once', () => {
    const served = ZOO_CASES.flatMap((c) => {
      const n = wrongGuessOf(c.readings);
      return n ? [`${n}=${(c.readings as Record<string, string>)[n]}`] : [];
    });
    expect(served.sort()).toEqual(WRONG.map(([n, v]) => `${n}=${v}`).sort());
  });
});
