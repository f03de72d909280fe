import { describe, expect, it } from 'vitest';
import { ALL_PROPERTIES } from '../../properties/index.ts';
import { FAULTS } from '../../src/reference/index.ts';
import { ASSUMPTION_BY_NAME } from '../../src/spec/index.ts';

describe('the property catalogue', () => {
  const ids = ALL_PROPERTIES.map((p) => p.id);

  // docs/CONTRACTS.md lists exactly these ids: test/docs/contracts.test.ts.
  it('has each property id once', () => {
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('names every expected killer of the reference faults', () => {
    for (const f of FAULTS) for (const k of f.expectedKillers) if (!k.startsWith('load.')) expect(ids, `${f.name} → ${k}`).toContain(k);
  });

  it('has, for every property, a fault of the reference that it is expected to kill (no dead weight)', () => {
    const killers = new Set(FAULTS.flatMap((f) => f.expectedKillers));
    expect(ids.filter((id) => !killers.has(id))).toEqual([]);
  });

  it('declares only registry assumptions, a section and an invariant sentence', () => {
    for (const p of ALL_PROPERTIES) {
      for (const a of p.assumptions) expect(ASSUMPTION_BY_NAME.has(a), `${p.id}: ${a}`).toBe(true);
      expect(p.section, p.id).toMatch(/^\d+(\.\d+)?$/);
      expect(p.invariant.endsWith('.'), p.id).toBe(true);
      expect(p.id).toMatch(/^[a-z]+\.[a-z-]+$/);
    }
  });

  it('orders cheap properties before the sweeps', () => {
    expect(ids.indexOf('shapes.response-envelope')).toBe(0);
    expect(ids.indexOf('rejection.violations-rejected')).toBeGreaterThan(ids.indexOf('usage.idempotent'));
  });
});
