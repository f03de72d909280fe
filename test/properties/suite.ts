/**
 * The shared shape of the per-area test files: each property passes against the correct reference
 * with a fixed seed and few runs, and is shown catching a named fault.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Property } from '../../src/check/property.ts';
import { References, runAgainst, summary, type FaultCase } from './harness.ts';

/** `clean: false` leaves out the runs against the correct reference (another file of the same properties has them). */
export function propertySuite(name: string, props: readonly Property[], faults: readonly FaultCase[], o: { cleanRuns?: number; clean?: boolean } = {}): void {
  describe(name, () => {
    const refs = new References();
    afterAll(() => refs.closeAll());
    const byId = new Map(props.map((p) => [p.id, p]));

    for (const p of o.clean === false ? [] : props) {
      it(`${p.id} passes against the correct reference`, async () => {
        const c = await runAgainst(await refs.get(), p, { runs: o.cleanRuns ?? 5 });
        // Clean: no finding of any kind (a transport finding too), every planned case run, no time bound.
        expect(c.problems, summary(c)).toEqual([]);
        expect(c.result.status).toBe('passed');
        expect(c.result.runs).toBeGreaterThan(0);
      });
    }

    for (const f of faults) {
      it(`${f.id} catches fault ${f.fault}`, async () => {
        const p = byId.get(f.id);
        expect(p, `no property ${f.id} in ${name}`).toBeDefined();
        const c = await runAgainst(await refs.get(f.fault), p!, { runs: f.runs ?? 10 });
        if (f.expect === 'failing') {
          expect(c.failing.length, summary(c)).toBeGreaterThan(0);
          expect(c.result.status).toBe('failed');
        } else {
          const name = f.expect.slice('assumption:'.length);
          expect(c.failing, summary(c)).toEqual([]);
          expect(c.assumptions.map((x) => x.assumption), summary(c)).toContain(name);
        }
      });
    }
  });
}
