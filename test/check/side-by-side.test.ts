/**
 * Properties side by side (`propertiesAtOnce`) against the reference: the same statuses and the same
 * findings as each property alone, for the same seed, on the correct reference and on one reference
 * holding two faults, each caught by a property of one kind (usage-summed by one that runs side by
 * side, key-gen-zero-accepted by one that runs alone): both kinds in one pair of runs, where a pair
 * per fault bought the same comparison twice. The fault caught alone was ops-limit-off-by-one, whose
 * 51-op counterexample took most of this file's time to shrink, twice (90 of 162 s measured at load
 * 12); a key_gen of zero shrinks at once and is caught by the same property. Every request counted once, by the
 * property that sent it; results in the selection's order. Without the cost probe: it runs alone in
 * any run (src/check/run/schedule.ts), and this file runs beside other test workers, where latency
 * is not judged (test/check/cost-probe-apart.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ALL_PROPERTIES } from '../../properties/index.ts';
import { runProperties, type RunResult, runExitCode } from '../../src/check/run/index.ts';
import { runsBesideOthers } from '../../src/check/run/schedule.ts';
import { parseProfile } from '../../src/target/profile.ts';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import { References } from '../properties/harness.ts';
import { WITHOUT_COST_PROBE } from './cost-probe-apart.ts';

const refs = new References();
const pairs: RunningReference[] = [];
afterAll(async () => {
  await refs.closeAll();
  await Promise.all(pairs.map((r) => r.close()));
});

/** The reference with these faults switched on (References holds one fault at most). */
async function referenceWith(faults: readonly string[]): Promise<RunningReference> {
  if (faults.length < 2) return refs.get(faults[0]);
  const r = await startReference({ port: 0, faults: [...faults] });
  pairs.push(r);
  return r;
}

const byId = (id: string) => ALL_PROPERTIES.find((p) => p.id === id)!;
const failedIds = (run: RunResult): string[] => run.results.filter((r) => r.status === 'failed').map((r) => r.id);

/** What must not change: each property's status and its findings' kinds and grounds. */
function verdicts(run: RunResult): [string, string, string[]][] {
  return run.results.map((r) => [r.id, r.status, r.findings.map((f) => `${f.kind} ${f.judgement ?? f.assumption ?? ''}`).sort()]);
}

describe('properties side by side', () => {
  for (const faults of [[], ['usage-summed', 'key-gen-zero-accepted']]) {
    it(`give the same verdicts as one at a time: ${faults.join(' with ') || 'the correct reference'}`, async () => {
      const ref = await referenceWith(faults);
      const profile = parseProfile(ref.profile);
      const o = { seed: 7, runs: 8, embedded: true, perPropertyMs: 60_000 };
      const alone = await runProperties(profile, WITHOUT_COST_PROBE, { ...o, propertiesAtOnce: 1 });
      const beside = await runProperties(profile, WITHOUT_COST_PROBE, { ...o, propertiesAtOnce: 4 });
      expect(verdicts(beside)).toEqual(verdicts(alone));
      expect(beside.results.map((r) => r.id)).toEqual(WITHOUT_COST_PROBE.map((p) => p.id));
      // Each request counted once, by the property that sent it.
      expect(beside.results.reduce((a, r) => a + r.requests, 0)).toBe(beside.requests);
      expect(runExitCode(beside)).toBe(runExitCode(alone));
      expect(runExitCode(beside)).toBe(faults.length ? 1 : 0);
      // Each fault caught in both runs: usage-summed by a property that runs beside others, key-gen-zero-accepted by one that runs alone.
      if (faults.length) {
        for (const run of [alone, beside]) {
          expect(failedIds(run).filter((id) => id.startsWith('usage.') && runsBesideOthers(byId(id))).length, failedIds(run).join(', ')).toBeGreaterThan(0);
          expect(failedIds(run)).toContain('rejection.violations-rejected');
        }
      }
    }, 180_000);
  }

  it('name a target that went down once, and leave the properties not yet begun skipped, saying so', async () => {
    const ref = await refs.get('dies-on-input');
    const run = await runProperties(parseProfile(ref.profile), WITHOUT_COST_PROBE, { seed: 3, runs: 8, embedded: true, perPropertyMs: 60_000, perRequestMs: 5000, propertiesAtOnce: 4 });
    const findings = run.results.flatMap((r) => r.findings);
    expect(findings.filter((f) => f.kind === 'crash')).toHaveLength(1);
    expect(findings.filter((f) => f.kind === 'violation')).toEqual([]);
    expect(runExitCode(run)).toBe(1);
    const notBegun = run.results.filter((r) => r.status === 'skipped' && /the target went down/.test(r.findings[0]?.message ?? ''));
    expect(notBegun.length).toBeGreaterThan(0);
  }, 180_000);

  it('run the fault\'s killer beside others when it may, and alone when it may not', () => {
    const ids = new Map(ALL_PROPERTIES.map((p) => [p.id, runsBesideOthers(p)]));
    expect(ids.get('usage.never-summed')).toBe(true);
    expect(ids.get('commits.stale-base-rejected')).toBe(true);
    expect(ids.get('rejection.violations-rejected')).toBe(false);
  });
});
