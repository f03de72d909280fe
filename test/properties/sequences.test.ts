/**
 * commits.model-sequences (properties/sequences.ts): silent on the correct reference, kills the
 * fault a sequence reveals (restore-any-revision), and the commit properties together kill it,
 * names the reading (never a violation) against faults that are readings, and shrinks a failure to a
 * short sequence of numbered steps with one curl line per step.
 */
import { afterAll, describe, expect, it } from 'vitest';
import COMMITS from '../../properties/commits.ts';
import RACES from '../../properties/races.ts';
import SEQUENCES from '../../properties/sequences.ts';
import { decodeReplayToken } from '../../src/check/run/replay-token.ts';
import { replayProperty, runProperties, runExitCode } from '../../src/check/run/index.ts';
import { curlLines } from '../../src/report/curl-lines.ts';
import type { RunningReference } from '../../src/reference/index.ts';
import { parseProfile } from '../../src/target/profile.ts';
import { References, runAgainst, summary } from './harness.ts';

const prop = SEQUENCES[0]!;
const refs = new References();
afterAll(() => refs.closeAll());

/** A run as `pouchproof run` makes it: shrinking on. */
async function shrunk(ref: RunningReference, seed: number) {
  const run = await runProperties(parseProfile(ref.profile), [prop], { seed, runs: 30, embedded: true, perPropertyMs: 30_000 });
  return run.results[0]!;
}

describe('commits.model-sequences', () => {
  it('runs several steps per case and finds nothing against the correct reference (three seeds)', async () => {
    const ref = await refs.get();
    for (const seed of [11, 12, 13]) {
      const c = await runAgainst(ref, prop, { seed, runs: 30 });
      expect(c.result.findings, summary(c)).toEqual([]);
      expect(c.result.status).toBe('passed');
      expect(c.result.requests).toBeGreaterThan(c.result.runs * 2);
    }
  });

  it('kills restore-any-revision with a violation shrunk to a few numbered steps, one curl line each', async () => {
    const ref = await refs.get('restore-any-revision');
    let detected = 0;
    for (const seed of [1, 2, 3, 4]) {
      const r = await shrunk(ref, seed);
      const v = r.findings.find((f) => f.kind === 'violation');
      if (!v) continue;
      detected++;
      expect(v.judgement).toBe('commits.stale-op-not-applied');
      expect(v.message).toMatch(/^step \d+ \(restore on the (previous|first) revision/);
      const steps = v.description!.split('\n').filter((l) => /^\d+\. /.test(l));
      expect(steps.map((l) => Number(l.split('.')[0]))).toEqual(steps.map((_, i) => i + 1));
      // The shortest sequence: an artifact, a delete at its head, the stale restore (maybe in fewer requests).
      expect(steps.length).toBeLessThanOrEqual(4);
      expect(steps[steps.length - 1]).toMatch(/restore on the (previous|first) revision \(not the head\)/);
      expect(curlLines(v)).toHaveLength(steps.length);
      for (const line of curlLines(v)) expect(line).toMatch(/\ncurl .*\/operations'/);
      expect(v.detectedAfterRequests).toBeGreaterThan(0);
      // The replay token runs the shrunk sequence again, to the same violation.
      const again = await replayProperty(parseProfile(ref.profile), prop, decodeReplayToken(v.replay!), { embedded: true });
      expect(again.findings.find((f) => f.kind === 'violation')?.description).toBe(v.description);
    }
    expect(detected).toBeGreaterThanOrEqual(3);
  });

  it('the commit properties together kill restore-any-revision, the sequences among the killers, with violations of the letter only', async () => {
    // What the suite must detect, however many of the commit properties come to see it: a killer may
    // be added, none may be lost, and whoever kills it does so with a violation, never a guess.
    const ref = await refs.get('restore-any-revision');
    const run = await runProperties(parseProfile(ref.profile), [...COMMITS, ...RACES, prop], { seed: 1, runs: 30, embedded: true, perPropertyMs: 30_000 });
    const killers = run.results.filter((r) => r.findings.some((f) => f.kind === 'violation')).map((r) => r.id);
    expect(killers).toContain(prop.id);
    const others = run.results.flatMap((r) => r.findings).filter((f) => f.kind !== 'violation' && f.kind !== 'skipped');
    expect(others.map((f) => `${f.property} ${f.kind}: ${f.message}`)).toEqual([]);
    expect(runExitCode(run)).toBe(1);
  });

  it.each([
    ['no-batch-chaining', 'batch-chaining'],
    ['operation-id-ignored', 'operation-id-idempotency'],
    ['seq-per-batch', 'seq-semantics'],
  ])('against %s (a reading, not a defect of the letter) it names %s and raises no violation', async (fault, assumption) => {
    const c = await runAgainst(await refs.get(fault), prop, { runs: 30 });
    expect(c.failing, summary(c)).toEqual([]);
    expect(c.assumptions.map((f) => f.assumption), summary(c)).toContain(assumption);
  });

  it('told the readings, it is silent under the reference in them', async () => {
    const readings = { 'batch-chaining': 'pre-batch-heads', 'batch-atomicity': 'per-op', 'operation-id-idempotency': 'not-deduplicated', 'conflict-behaviour': 'per-op-status' } as const;
    const c = await runAgainst(await refs.get(undefined, readings), prop, { runs: 30, assume: readings });
    expect(c.result.findings, summary(c)).toEqual([]);
  });
});
