/**
 * The suite against the reference's named faults: every fault the conformance suite is expected
 * to kill is killed, and the correct reference yields no violation over five seeds. Runtime is
 * bounded: each fault's run stops at its first kill, and the clean seeds run few cases.
 */
import { describe, expect, it } from 'vitest';
import { runMutants } from '../../src/check/mutants.ts';
import { FAULTS, startReference } from '../../src/reference/index.ts';
import { parseProfile } from '../../src/target/profile.ts';
import { ALL_PROPERTIES } from '../../properties/index.ts';

async function embedded(faults: readonly string[]) {
  const ref = await startReference({ host: '127.0.0.1', port: 0, faults });
  return { profile: parseProfile(ref.profile), close: () => ref.close() };
}

describe('mutants', () => {
  it('kills every fault and finds nothing in the correct reference over 5 seeds', async () => {
    const r = await runMutants(ALL_PROPERTIES, FAULTS, embedded, { seed: 1234, runs: 25, seeds: 5, cleanRuns: 5, perPropertyMs: 20_000 });
    const survivors = r.faults.filter((f) => f.ran && !f.killed).map((f) => f.fault);
    const falseFindings = r.clean.flatMap((c) => c.falseFindings.map((x) => `seed ${c.seed} ${x.property}: ${x.message}`));
    expect(survivors).toEqual([]);
    expect(falseFindings).toEqual([]);
    expect(r.expected).toBeGreaterThan(0);
    expect(r.killed).toBe(r.expected);
    expect(r.clean).toHaveLength(5);
    expect(r.exitCode).toBe(0);
  }, 600_000);
});
