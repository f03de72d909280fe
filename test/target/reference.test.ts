/** The client against the reference server: its generated profile, signing interop, redaction. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TargetClient } from '../../src/target/client.ts';
import { toCurl } from '../../src/target/curl.ts';
import { ProfileFileSchema, profileFileIssues, type Profile } from '../../src/target/profile.ts';
import { resolveTarget, type ResolvedTarget } from '../../src/target/resolve.ts';
import { EMBEDDED_REFERENCE } from '../../src/reference/embedded.ts';

let target: ResolvedTarget;
let profile: Profile;
let client: TargetClient;

beforeAll(async () => {
  target = await resolveTarget({ kind: 'embedded' }, EMBEDDED_REFERENCE);
  profile = target.profile;
  client = new TargetClient(profile);
});

afterAll(async () => {
  await client?.close();
  await target?.close();
});

function commitBody(): Record<string, unknown> {
  return {
    operation_id: randomUUID(),
    epoch: randomUUID(),
    ops: [
      {
        type: 'create',
        artifact_id: randomUUID(),
        revision_id: randomUUID(),
        base_revision_id: null,
        key_gen: 1,
        envelope: '',
        signature: '',
        signer_member_id: profile.accounts.primary.device?.memberId ?? randomUUID(),
        blob_ids: [],
      },
    ],
  };
}

describe('reference server', () => {
  it('its generated profile satisfies the profile file schema', () => {
    expect(target.embedded).toBe(true);
    expect(profileFileIssues(target.reference!.profile)).toEqual([]);
    expect(ProfileFileSchema.safeParse(target.reference!.profile).success).toBe(true);
    expect(profile.accounts.primary.device?.privateKey).toBeDefined();
    expect(profile.secrets.length).toBeGreaterThan(0);
  });

  it('accepts a commit signed by the client and rejects an unsigned or forged one', async () => {
    const pouchId = profile.pouchIds[0] ?? randomUUID();
    const signed = await client.call({ endpoint: 'commitOperations', params: { pouchId }, body: commitBody() });
    expect(signed.verdict, signed.reason).toBe('accepted');
    const unsigned = await client.call({ endpoint: 'commitOperations', params: { pouchId }, body: commitBody(), signature: 'omit' });
    expect(unsigned.verdict).toBe('rejected');
    const forged = await client.call({
      endpoint: 'commitOperations',
      params: { pouchId },
      body: commitBody(),
      signature: { header: signed.request.headers['service-signature'] },
    });
    expect(forged.verdict).toBe('rejected');
  });

  it('rejects a call without credentials and never shows a secret in curl output', async () => {
    const ex = await client.call({ endpoint: 'reportUsage', params: { sourceId: '0123456789abcdef0123456789abcdef' }, body: { rows: [] }, as: 'anonymous' });
    expect(ex.verdict).toBe('rejected');
    const withCreds = await client.call({ endpoint: 'reportUsage', params: { sourceId: '0123456789abcdef0123456789abcdef' }, body: { rows: [] } });
    expect(withCreds.verdict).toBe('accepted');
    const line = toCurl(withCreds, profile.secrets);
    for (const s of profile.secrets) expect(line).not.toContain(s);
  });
});
