/**
 * The master-password change (4.6) sends placeholder statements: on a real server that could lock
 * the account out. Against anything but the embedded reference it runs only when the profile of a
 * dedicated test account opts in with "allowAccountChanges": true.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_PROPERTIES } from '../../properties/index.ts';
import { missingCapability } from '../../src/check/run/capabilities.ts';
import { runProperties } from '../../src/check/run/index.ts';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import { TargetClient } from '../../src/target/client.ts';
import { parseProfile } from '../../src/target/profile.ts';

let ref: RunningReference;
beforeAll(async () => {
  ref = await startReference({ port: 0 });
});
afterAll(async () => {
  await ref.close();
});

const profileOf = (allow?: boolean) => parseProfile({ ...(ref.profile as object), ...(allow === undefined ? {} : { allowAccountChanges: allow }) });
const byId = (id: string) => ALL_PROPERTIES.find((p) => p.id === id)!;

/** Runs properties as against a shared target (not embedded), recording the endpoints they call. */
async function runShared(allow: boolean | undefined, ids: string[]) {
  const profile = profileOf(allow);
  const client = new TargetClient(profile);
  const called: string[] = [];
  const call = client.call.bind(client);
  client.call = (o) => (called.push(o.endpoint), call(o));
  try {
    const run = await runProperties(profile, ids.map(byId), { seed: 11, runs: 3, embedded: false, client });
    return { run, called };
  } finally {
    await client.close();
  }
}

describe('capability account-changes', () => {
  it('is off by default on a shared target, on for the embedded reference or an opting-in profile', () => {
    expect(profileOf().allowAccountChanges).toBe(false);
    expect(missingCapability(profileOf(), 'account-changes', { embedded: false })).toMatch(/allowAccountChanges/);
    expect(missingCapability(profileOf(), 'account-changes', { embedded: true })).toBeUndefined();
    expect(missingCapability(profileOf(true), 'account-changes', { embedded: false })).toBeUndefined();
  });

  it('skips unlock.head-seq with the reason unless allowed', async () => {
    const off = await runShared(undefined, ['unlock.head-seq']);
    expect(off.run.results[0]).toMatchObject({ status: 'skipped' });
    expect(off.run.results[0]!.findings[0]!.message).toMatch(/allowAccountChanges/);
    expect(off.called).toEqual([]);
    const on = await runShared(true, ['unlock.head-seq']);
    expect(on.run.results[0]).toMatchObject({ status: 'passed' });
    expect(on.called).toContain('changeUnlock');
  });

  it('keeps the shapes and roster properties off 4.6 unless allowed, and still checks the other endpoints', async () => {
    const ids = ['shapes.valid-accepted', 'shapes.response-envelope', 'roster.limits-only-in-roster'];
    const off = await runShared(undefined, ids);
    expect(off.run.results.map((r) => r.status)).toEqual(['passed', 'passed', 'passed']);
    expect(off.called).not.toContain('changeUnlock');
    expect(new Set(off.called)).toEqual(new Set(['approveDevice', 'commitOperations', 'reportUsage', 'registerPasskey', 'revokeBrowser']));
    const on = await runShared(true, ids);
    expect(on.called).toContain('changeUnlock');
  });
});
