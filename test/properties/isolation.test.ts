/**
 * §1 "Access to pouches is held by members" under both readings of another account's pouch id
 * (cross-account-isolation = refused | separate-pouch): auth.cross-account is silent on the correct
 * reference in each, and a leak is a violation in each (no owner check under `refused`; artifacts
 * looked up by pouch id alone under `separate-pouch`), found from what the owner sees next.
 */
import { afterAll, describe, expect, it } from 'vitest';
import AUTH from '../../properties/auth.ts';
import { References, runAgainst, summary } from './harness.ts';

const crossAccount = AUTH.find((p) => p.id === 'auth.cross-account')!;
const READINGS = ['refused', 'separate-pouch'] as const;
const LEAK = { refused: 'cross-account-access', 'separate-pouch': 'separate-pouch-leak' } as const;

describe('auth.cross-account under every reading of cross-account-isolation', () => {
  const refs = new References();
  afterAll(() => refs.closeAll());

  for (const reading of READINGS) {
    it(`is silent on the correct reference serving ${reading}, told or not told the reading`, async () => {
      const ref = await refs.get(undefined, { 'cross-account-isolation': reading });
      for (const seed of [1, 2, 3]) {
        const told = await runAgainst(ref, crossAccount, { runs: 6, seed, assume: { 'cross-account-isolation': reading } });
        expect(told.result.findings, summary(told)).toEqual([]);
        // Not told: at most an assumption finding naming the reading, never a violation.
        const other = reading === 'refused' ? 'separate-pouch' : 'refused';
        const untold = await runAgainst(ref, crossAccount, { runs: 6, seed, assume: { 'cross-account-isolation': other } });
        expect(untold.failing, summary(untold)).toEqual([]);
        expect(untold.assumptions.every((f) => f.assumption === 'cross-account-isolation'), summary(untold)).toBe(true);
      }
    });

    it(`kills ${LEAK[reading]} (a leak under ${reading}) with a §1 violation, told the reading or not`, async () => {
      const ref = await refs.get(LEAK[reading], { 'cross-account-isolation': reading });
      for (const assumed of READINGS) {
        const c = await runAgainst(ref, crossAccount, { runs: 6, assume: { 'cross-account-isolation': assumed } });
        expect(c.failing.length, summary(c)).toBeGreaterThan(0);
        expect(c.failing[0]!.kind).toBe('violation');
        expect(c.failing[0]!.message).toMatch(/the owner updating its head|the owner creating the artifact/);
      }
    });
  }
});
