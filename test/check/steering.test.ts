/**
 * Steering readings (context.ts `STEERING`): how a device signs and whether a fresh pouch takes a
 * commit shape what a case sends, and read no answer. Left unidentified by the probe, they cost a
 * case its verdict only until the target accepts a request they shaped; a reading the case reads an
 * answer by stays unknown, and a wrong guess (nothing it shaped is accepted) never passes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_PROPERTIES } from '../../properties/index.ts';
import { runProperties } from '../../src/check/run/index.ts';
import type { AssumptionName, Readings } from '../../src/spec/index.ts';
import { openTarget, type ReadyTarget } from '../../src/session/index.ts';

const pick = (...ids: string[]) => ALL_PROPERTIES.filter((p) => ids.includes(p.id));
// A law judged on a refusal after an accepted setup, and one whose verdict reads the JWS form.
const LAWS = pick('commits.stale-base-rejected', 'signatures.variants-accepted');

async function statuses(t: ReadyTarget, unknown: AssumptionName): Promise<Record<string, string>> {
  const r = await runProperties(t.profile, LAWS, { seed: 7, runs: 6, embedded: true, unknownReadings: new Map([[unknown, 'what the probe saw fits no reading']]) });
  const kinds = r.results.flatMap((p) => p.findings.map((f) => f.kind));
  expect(kinds.filter((k) => k === 'violation' || k === 'server-error')).toEqual([]);
  return Object.fromEntries(r.results.map((p) => [p.id, p.status]));
}

describe('a steering reading the probe left unidentified', () => {
  let right: ReadyTarget;
  beforeAll(async () => {
    right = await openTarget({}, {});
  });
  afterAll(() => right.close());

  it.each<AssumptionName>(['jws-form', 'pouch-existence'])('%s: a case whose shaped commit was accepted keeps its pass', async (n) => {
    expect((await statuses(right, n))['commits.stale-base-rejected']).toBe('passed');
  });

  it('jws-form: a verdict that reads the signature form by it is still unknown', async () => {
    expect((await statuses(right, 'jws-form'))['signatures.variants-accepted']).toBe('inconclusive');
  });

  // The guess is the registry default; the server takes the other reading, so nothing the guess shaped is accepted.
  const wrong: readonly [AssumptionName, Readings][] = [
    ['jws-form', { 'jws-form': 'b64-text-payload' }],
    ['pouch-existence', { 'pouch-existence': 'must-exist' }],
  ];
  it.each(wrong)('%s guessed wrong: no pass and no violation', async (n, served) => {
    const t = await openTarget({}, { readings: served });
    try {
      const guessed = { ...t, profile: { ...t.profile, assumptions: { ...t.profile.assumptions, ...{ [n]: right.profile.assumptions[n] } } } };
      expect((await statuses(guessed, n))['commits.stale-base-rejected']).not.toBe('passed');
    } finally {
      await t.close();
    }
  });
});
