/**
 * A fault must still be caught on a server that reads the spec differently. Each fault runs on a
 * reference switched to an alternative reading (rotating through the catalogue, skipping the
 * combinations `faultReadingConflict` says make no sense), with the harness told that reading, as
 * `--assume auto` would find it. Every fault that is not load-only must be killed, and the reading
 * must not turn a kill into a false finding elsewhere. Without the cost probe and its faults: this
 * file runs beside other test workers, where latency is not judged, and no reading decides a cost
 * (test/check/cost-probe-apart.ts).
 */
import { describe, expect, it } from 'vitest';
import { isLoadOnly, runMutants } from '../../src/mutants/mutants.ts';
import { ALTERNATIVES, FAULTS, faultReadingConflict, keyOf, type Reading } from '../../src/reference/index.ts';
import type { Readings } from '../../src/spec/index.ts';
import { resolveTarget } from '../../src/target/resolve.ts';
import { FAULTS_WITHOUT_COST, isCostFault, WITHOUT_COST_PROBE } from './cost-probe-apart.ts';
import { EMBEDDED_REFERENCE } from '../../src/reference/embedded.ts';

/** The fault's companion reading: the next alternative in rotation that makes sense with it. */
export function companion(index: number, fault: (typeof FAULTS)[number]['name']): Reading | undefined {
  for (let k = 0; k < ALTERNATIVES.length; k++) {
    const r = ALTERNATIVES[(index * 7 + k) % ALTERNATIVES.length]!;
    if (!faultReadingConflict(fault, { [r.name]: r.value } as Readings)) return r;
  }
  return undefined;
}

describe('mutants on a reference that reads the spec differently', () => {
  it('kills every fault with an alternative reading switched on and assumed', async () => {
    const misses: string[] = [];
    let runs = 0;
    for (const [i, f] of FAULTS.entries()) {
      if (isLoadOnly(f) || isCostFault(f)) continue;
      const r = companion(i, f.name);
      if (!r) continue;
      const readings = { [r.name]: r.value } as Readings;
      const start = async (faults: readonly string[]) => {
        const t = await resolveTarget({ kind: 'embedded', faults, readings }, EMBEDDED_REFERENCE);
        return { ...t, profile: { ...t.profile, assumptions: { ...t.profile.assumptions, ...readings } } };
      };
      const m = await runMutants(WITHOUT_COST_PROBE, [f], start, { seed: 77 + i, runs: 25, seeds: 0, perPropertyMs: 45_000 });
      runs++;
      if (!m.faults[0]!.killed) misses.push(`${f.name} with ${keyOf(r)}`);
    }
    expect(misses).toEqual([]);
    expect(runs).toBeGreaterThan(FAULTS_WITHOUT_COST.length - 5);
  }, 600_000);
});
