/** Linearizable commits: many concurrent commits on the same base, exactly one applies. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import { CONCURRENT, commit, commitBody, op, raceOnOneBase } from './helpers.ts';

let ref: RunningReference;
beforeAll(async () => {
  ref = await startReference();
});
afterAll(async () => {
  await ref.close();
});

it(`${CONCURRENT} concurrent commits on the same base: exactly one applies, the others conflict`, async () => {
  for (let round = 0; round < 3; round++) {
    const { statuses, seqs } = await raceOnOneBase(ref);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(CONCURRENT - 1);
    expect(seqs).toEqual([2]);
  }
});

it(`${CONCURRENT} concurrent creates in one pouch all apply with distinct, gap-free seqs`, async () => {
  const pouch = randomUUID();
  const rs = await Promise.all(Array.from({ length: CONCURRENT }, () => commit(ref, pouch, commitBody([op(ref)]))));
  expect(rs.every((r) => r.status === 200)).toBe(true);
  const seqs = rs.map((r) => r.json.data.results[0].seq as number).sort((x, y) => x - y);
  expect(seqs).toEqual(Array.from({ length: CONCURRENT }, (_, i) => i + 1));
});
