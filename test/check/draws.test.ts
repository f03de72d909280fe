/**
 * The random phase draws its cases a block at a time (src/check/run/draws.ts): the same cases, at the
 * same places of the seed's stream, as one eager draw, so seeds and replay tokens mean what they did.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DrawStream, MAX_SKIPS_PER_RUN } from '../../src/check/run/draws.ts';
import { validRequest } from '../../src/gen/index.ts';

const arb = fc.record({ n: fc.integer(), s: fc.string(), req: validRequest('reportUsage') });

/** Every kept case of a stream, drawn `block` at a time. */
function all(s: DrawStream, block: number): { index: number; input: unknown }[] {
  const out: { index: number; input: unknown }[] = [];
  for (let b = s.next(block); b.length > 0; b = s.next(block)) out.push(...b);
  return out;
}

describe('the random phase draws its cases a block at a time', () => {
  it('as one eager draw of the seed would: the same inputs at the same places', () => {
    const eager = fc.sample(arb, { seed: 42, numRuns: 300 });
    for (const block of [1, 7, 256, 1000]) {
      const lazy = all(new DrawStream({}, arb, 42, 300), block);
      expect(lazy.map((d) => d.index)).toEqual(eager.map((_, i) => i));
      expect(lazy.map((d) => d.input)).toEqual(eager);
    }
  });

  it('keeps what stillValid keeps, at the places the eager draw found them, and stops at the planned runs', () => {
    const keep = (v: unknown) => (v as { n: number }).n % 3 === 0;
    const eager = fc.sample(arb, { seed: 9, numRuns: 2000 }).flatMap((input, index) => (keep(input) ? [{ index, input }] : []));
    const s = new DrawStream({ stillValid: keep }, arb, 9, 40);
    const lazy = all(s, 16);
    expect(lazy).toEqual(eager.slice(0, 40));
    expect(s.kept).toBe(40);
    expect(s.skipped).toBe(lazy.at(-1)!.index + 1 - 40);
  });

  it('gives up after MAX_SKIPS_PER_RUN discarded draws per planned case, and counts them', () => {
    const s = new DrawStream({ stillValid: () => false }, fc.integer(), 1, 3);
    expect(s.next(256)).toEqual([]);
    expect(s.skipped).toBe(3 * (MAX_SKIPS_PER_RUN + 1));
  });

  it('draws no more than it is asked for: a hundred thousand planned cases cost one block', () => {
    let generated = 0;
    const counted = fc.integer().map((n) => {
      generated++;
      return n;
    });
    const s = new DrawStream({}, counted, 3, 100_000);
    expect(s.next(256)).toHaveLength(256);
    expect(generated).toBe(256);
  });
});

describe('taken one at a time, as the pool pulls them', () => {
  it('the same cases in the same order, drawn a block ahead at most', () => {
    let generated = 0;
    const counted = arb.map((v) => {
      generated++;
      return v;
    });
    const eager = fc.sample(arb, { seed: 5, numRuns: 120 });
    const s = new DrawStream({}, counted, 5, 120);
    const taken: unknown[] = [];
    for (let d = s.take(); d; d = s.take()) {
      expect(d.index).toBe(taken.length);
      taken.push(d.input);
      // Never more than a quarter of the places taken (or the first block) drawn ahead.
      expect(generated - taken.length).toBeLessThanOrEqual(Math.max(8, Math.ceil(taken.length / 3)));
    }
    expect(taken).toEqual(eager);
  });
});
