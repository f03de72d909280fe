/** The one decision of which pouches a run may commit to, and how load and properties act on it. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { missingCapability } from '../../src/check/run/capabilities.ts';
import { defineProperty, PASS, type Property } from '../../src/check/property.ts';
import { runProperties, runExitCode } from '../../src/check/run/index.ts';
import { pouchesFor } from '../../src/load/requests.ts';
import { Rng } from '../../src/load/rng.ts';
import { resolveAssumptions } from '../../src/spec/index.ts';
import { NO_LISTED_POUCH, pouchPlan } from '../../src/target/pouches.ts';
import { parseProfile, type Profile } from '../../src/target/profile.ts';

const LISTED = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'];

function profile(reading: 'created-on-commit' | 'must-exist', pouchIds: string[]): Profile {
  // An unused port: nothing is ever sent, a skipped property makes no request.
  return parseProfile({ baseUrl: 'http://127.0.0.1:9', pouchIds, assumptions: { 'pouch-existence': reading } });
}

describe('pouchPlan', () => {
  it('fresh pouches when a commit creates them, listed ones (ignored otherwise) when they must exist', () => {
    expect(pouchPlan(profile('created-on-commit', []))).toEqual({ kind: 'fresh' });
    expect(pouchPlan(profile('created-on-commit', LISTED))).toEqual({ kind: 'fresh' });
    expect(pouchPlan(profile('must-exist', LISTED))).toEqual({ kind: 'listed', ids: LISTED });
  });

  it('under must-exist with no listed pouch: nothing to commit to, and why', () => {
    expect(pouchPlan(profile('must-exist', []))).toEqual({ kind: 'unavailable', reason: NO_LISTED_POUCH });
    expect(pouchPlan({ pouchIds: [], assumptions: resolveAssumptions({ 'pouch-existence': 'must-exist' }) }).kind).toBe('unavailable');
  });
});

describe('load acts on it', () => {
  it('spreads a run over fresh pouches or every listed one, and refuses a run with none', () => {
    const fresh = pouchesFor(profile('created-on-commit', LISTED), new Rng(1), 3);
    expect(fresh).toHaveLength(3);
    expect(fresh.some((id) => LISTED.includes(id))).toBe(false);
    expect(pouchesFor(profile('must-exist', LISTED), new Rng(1), 3)).toEqual(LISTED);
    expect(() => pouchesFor(profile('must-exist', []), new Rng(1), 3)).toThrow(NO_LISTED_POUCH);
  });
});

describe('properties act on it', () => {
  it('the capability pouch is missing exactly when no pouch may be used, with the reason', () => {
    const env = { embedded: false };
    expect(missingCapability(profile('created-on-commit', []), 'pouch', env)).toBeUndefined();
    expect(missingCapability(profile('must-exist', LISTED), 'pouch', env)).toBeUndefined();
    expect(missingCapability(profile('must-exist', []), 'pouch', env)).toBe(NO_LISTED_POUCH);
  });

  it('a property needing a pouch is skipped with that reason, before any request', async () => {
    let checked = 0;
    const commits = defineProperty<number>({
      id: 'synthetic.commits', section: '4.2', invariant: 'commits apply.', assumptions: ['pouch-existence'], needs: ['pouch'],
      arbitrary: () => fc.constant(0),
      check: async () => (checked++, PASS),
    });
    const run = await runProperties(profile('must-exist', []), [commits as Property], { seed: 1, runs: 3 });
    expect(run.results[0]).toMatchObject({ status: 'skipped', requests: 0 });
    expect(run.results[0]!.findings).toEqual([expect.objectContaining({ kind: 'skipped', message: `skipped: ${NO_LISTED_POUCH}` })]);
    expect(checked).toBe(0);
    // Its only property skipped, the run checked nothing: it vouches for nothing, so it does not exit 0.
    expect(runExitCode(run)).toBe(2);
  });
});
