/**
 * The signature attacks whose verdict the registry's words decide under an alternative reading
 * (`SignatureAttack.verdictsUnder`): told that reading, the properties judge them, silent against a
 * reference that serves it and catching one that does not (the mutants docs/mutation.md names).
 */
import { afterAll, describe, expect, it } from 'vitest';
import SIGNATURES from '../../properties/signatures.ts';
import type { Readings } from '../../src/spec/index.ts';
import { References, runAgainst } from './harness.ts';

const refs = new References();
afterAll(() => refs.closeAll());

const CASES = [
  { id: 'signatures.forgeries-rejected', reading: { 'kid-binding': 'unbound' } },
  // kid a hint: kid.wrong and kid.number accepted, device.other refused.
  { id: 'signatures.forgeries-rejected', reading: { 'kid-binding': 'caller-key' } },
  { id: 'signatures.variants-accepted', reading: { 'high-s-accepted': 'rejected' } },
] as const;

describe('signature attacks judged under an alternative reading', () => {
  for (const c of CASES) {
    const prop = SIGNATURES.find((p) => p.id === c.id)!;
    const name = Object.keys(c.reading)[0]!;
    it(`${c.id}, told ${name}=${Object.values(c.reading)[0]}: silent against a reference serving it, an assumption finding against one that does not`, async () => {
      const serving = await runAgainst(await refs.get(undefined, c.reading as Readings), prop, { runs: 10, assume: c.reading });
      expect(serving.problems).toEqual([]);
      const other = await runAgainst(await refs.get(), prop, { runs: 10, assume: c.reading });
      expect(other.failing).toEqual([]);
      expect(other.assumptions.map((f) => f.assumption)).toContain(name);
    });
  }
});
