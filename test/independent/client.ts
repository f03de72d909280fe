/** A tiny client of the independent server for its own tests: bearer tokens and a signed commit. */
import { createPrivateKey, sign } from 'node:crypto';
import { blake3 } from '@noble/hashes/blake3.js';
import type { AccountConfig } from './config.ts';
import { canonicalJson, parseJson } from './json.ts';

export interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/** The detached ES256 JWS of section 5 over `body`, as a device with `privateJwk` makes it. */
export function serviceSignature(body: unknown, account: AccountConfig, header: object = { alg: 'ES256' }): string {
  const canonical = canonicalJson(parseJson(JSON.stringify(body), () => false));
  const payload = Buffer.from(blake3(Buffer.from(canonical, 'utf8'))).toString('base64url');
  const h = Buffer.from(JSON.stringify(header)).toString('base64url');
  const key = createPrivateKey({ key: account.device.privateJwk, format: 'jwk' });
  const sig = sign('sha256', Buffer.from(`${h}.${payload}`), { key, dsaEncoding: 'ieee-p1363' });
  return `${h}..${sig.toString('base64url')}`;
}

export async function call(url: string, method: string, path: string, token: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: the text itself is the answer.
  }
  return { status: res.status, body: parsed };
}

/** A one-op create commit body. */
export function createCommit(artifactId: string, revisionId: string, signer: string, base: string | null = null, type = 'create'): Record<string, unknown> {
  return {
    operation_id: crypto.randomUUID(),
    epoch: crypto.randomUUID(),
    ops: [{ type, artifact_id: artifactId, revision_id: revisionId, base_revision_id: base, key_gen: 1, envelope: '', signature: 'AAAA', signer_member_id: signer, blob_ids: [] }],
  };
}
