/**
 * The laws of 4.2 and 4.3 under the nemesis (docs/nemesis.md): lost answers, requests cut mid-body and
 * duplicated requests, each call that got no answer sent again with the same bytes. The correct
 * reference gives no violation over three seeds; `usage-dedup-by-connection`, which applies a report
 * again when its retry arrives on a new connection, is caught with the nemesis and is silent without it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import COMMITS from '../../properties/commits.ts';
import USAGE from '../../properties/usage.ts';
import { isFailing, runProperties, type RunResult } from '../../src/check/run/index.ts';
import type { Property } from '../../src/check/property.ts';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import { parseProfile } from '../../src/target/profile.ts';

const SPEC = 'lose-response=20%,reset-mid-request=10%,duplicate=10%';
/** A commit's effect at most once: the replay, the stale base and the sequence under retried commits. */
const COMMIT_IDS = new Set(['commits.operation-id-replay', 'commits.stale-base-rejected', 'commits.seq-increasing']);
const PROPS: readonly Property[] = [...USAGE.filter((p) => p.id !== 'usage.concurrent-reports'), ...COMMITS.filter((p) => COMMIT_IDS.has(p.id))];

let correct: RunningReference;
let faulty: RunningReference;
beforeAll(async () => {
  [correct, faulty] = await Promise.all([startReference({ port: 0 }), startReference({ port: 0, faults: ['usage-dedup-by-connection'] })]);
});
afterAll(async () => {
  await Promise.all([correct?.close(), faulty?.close()]);
});

async function suite(ref: RunningReference, props: readonly Property[], seed: number, nemesis: boolean): Promise<RunResult> {
  const profile = parseProfile({ ...(ref.profile as object), ...(nemesis ? { nemesis: SPEC } : {}) } as never);
  // endOnFailure: a kill needs one failing case, not its shrinking.
  return runProperties(profile, props, { seed, runs: 6, embedded: true, propertiesAtOnce: 4, perPropertyMs: 40_000, endOnFailure: true });
}

const violations = (r: RunResult) => r.results.flatMap((p) => p.findings.filter((f) => isFailing(f.kind)).map((f) => `${p.id}: ${f.message.slice(0, 300)}`));

describe('the laws under the nemesis', () => {
  it('the correct reference gives no violation over three seeds, and the faults were injected', async () => {
    for (const seed of [11, 12, 13]) {
      const r = await suite(correct, PROPS, seed, true);
      expect(violations(r), `seed ${seed}`).toEqual([]);
      expect(r.nemesis?.injected['lose-response'], `seed ${seed}`).toBeGreaterThan(0);
      expect(r.nemesis?.retries, `seed ${seed}`).toBeGreaterThan(0);
      expect(r.results.filter((p) => p.status === 'passed').length, `seed ${seed}`).toBeGreaterThan(PROPS.length / 2);
    }
  });

  it('a report applied again when its retry arrives on a new connection is caught only with the nemesis', async () => {
    const usage = USAGE.filter((p) => ['usage.idempotent', 'usage.never-summed', 'usage.monotone'].includes(p.id));
    const without = await suite(faulty, usage, 21, false);
    expect(violations(without)).toEqual([]);
    expect(without.results.every((p) => p.status === 'passed')).toBe(true);
    const withNemesis = await suite(faulty, usage, 21, true);
    expect(violations(withNemesis).length).toBeGreaterThan(0);
  });
});
