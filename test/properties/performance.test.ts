/**
 * performance.cost-growth against the reference: it flags the quadratic blob-id check with its
 * evidence, and stays silent on the correct reference over several repetitions and in every
 * alternative reading it can meet (told the reading, as `--assume auto` would find it; harness.ts
 * `alternativesReached`: under the rest it meets the defaults). No timing threshold of
 * the test's own: the judgement is the probe's (fitted growth against a linear model, with margins,
 * confirmed once); the sizes are the spec's limits, where a quadratic check costs ~100 ms and the
 * reference's linear work ~20 ms. Its budget running out on a target too slow to measure is no latency
 * verdict and is tested beside the other workers (cost-budget.test.ts), not in this timed group.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ALTERNATIVES } from '../../src/reference/index.ts';
import PERFORMANCE, { COST_LINEAR } from '../../properties/performance.ts';
import { alternativesReached, References, runAgainst, toldInEach } from './harness.ts';

const [costGrowth] = PERFORMANCE;
const refs = new References();
afterAll(() => refs.closeAll());

describe('performance.cost-growth', () => {
  it('flags the quadratic blob-id check as a performance finding (not a violation), with sizes, latencies and the fitted exponent', async () => {
    const { result, failing } = await runAgainst(await refs.get('quadratic-blob-ids'), costGrowth, { runs: 1 });
    expect(failing).toEqual([]);
    const found = result.findings.filter((f) => f.kind === 'performance');
    expect(found, JSON.stringify(result.findings)).toHaveLength(1);
    expect(found[0]).toMatchObject({ property: 'performance.cost-growth', judgement: COST_LINEAR.id });
    expect(found[0]!.message).toMatch(/blob_ids per op .*1: [\d.]+ ms, 250: [\d.]+ ms, 500: [\d.]+ ms, 1000: [\d.]+ ms, 2000: [\d.]+ ms; fitted exponent of the marginal cost [\d.]+/);
    expect(found[0]!.message).toContain('confirmed by a second measurement');
    // The same evidence as data: every dimension measured, the blob ids judged worse than linear.
    const curves = found[0]!.curves ?? [];
    expect(curves.map((c) => c.dimension)).toEqual(['blob_ids', 'envelope', 'ops', 'refused-envelope', 'usage-rows', 'members']);
    const blobs = curves.find((c) => c.dimension === 'blob_ids')!;
    expect(blobs).toMatchObject({ verdict: 'superlinear', measure: 'cpu' });
    expect(blobs.points.map((p) => p.size)).toEqual([1, 250, 500, 1000, 2000]);
    expect(blobs.exponent).toBeGreaterThan(1);
    // A performance finding alone does not fail the property (the run decides, under --fail-on).
    expect(result.status).toBe('passed');
  }, 60_000);

  it('stays silent on the correct reference over several repetitions', async () => {
    const ref = await refs.get();
    for (const seed of [1, 2, 3, 4]) {
      const { result } = await runAgainst(ref, costGrowth, { runs: 1, seed });
      if (process.env.COST_SHOW) console.log(result.findings.map((f) => f.message));
      expect(result.findings, `seed ${seed}`).toEqual([]);
      expect(result.requests).toBeGreaterThanOrEqual(60);
    }
  }, 120_000);

  it('stays silent on the correct reference in every alternative reading it can meet', async () => {
    // The others it would meet as it meets the defaults, which the repetitions above judge.
    const { reached, underDefaults } = await alternativesReached(costGrowth, { runs: 1 });
    expect(underDefaults.result.findings.filter((f) => f.kind !== 'skipped')).toEqual([]);
    expect(reached.length).toBeGreaterThan(ALTERNATIVES.length / 2);
    expect((await toldInEach(costGrowth, reached)).noisy).toEqual([]);
  }, 300_000);
});
