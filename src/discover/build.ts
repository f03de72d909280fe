/**
 * The requests probes build: commit ops and usage rows that every reading accepts except the one
 * thing a probe varies (opaque crypto fields as short base64url placeholders, one blob id, past
 * days, ASCII names), and the signed commit itself, in the JWS form and canonical form a probe
 * names (`Service-Signature`, section 5). `src/check` cannot reach the properties' builders, and
 * probes need fewer knobs.
 */
import { canonicalize, signServiceSignature, type CanonicalForm, type JwsForm } from '../crypto/index.ts';
import type { Exchange } from '../target/client.ts';
import type { OpType } from '../spec/index.ts';
import { plainDay } from '../check/model/plain.ts';
import type { DiscoveryEnv, Scope } from './env.ts';

export type Op = Record<string, unknown> & { readonly artifact_id: string; readonly revision_id: string };

export function op(type: OpType, artifact: string, revision: string, base: string | null, signer: string, extra: Record<string, unknown> = {}): Op {
  return {
    type,
    artifact_id: artifact,
    revision_id: revision,
    base_revision_id: base,
    key_gen: 1,
    envelope: 'ZW52ZWxvcGU',
    signature: 'c2lnbmF0dXJl',
    signer_member_id: signer,
    blob_ids: ['YmxvYg'],
    ...extra,
  };
}

export interface UsageRowSpec {
  readonly day?: string;
  readonly assistant?: string;
  readonly model?: string;
  /** All in `input`; the other counters 0. */
  readonly total?: number;
}

export function usageRow(s: UsageRowSpec = {}): Record<string, unknown> {
  return { input: s.total ?? 1, output: 0, cache_read: 0, cache_write: 0, day: s.day ?? plainDay(), assistant: s.assistant ?? 'pouchproof-probe', model: s.model ?? 'probe-model' };
}

/** How commits are signed: settled by the jws-form probe, then used by every later commit. */
export interface SignForm {
  readonly jwsForm: JwsForm;
}

export interface CommitOptions {
  readonly account?: 'primary' | 'secondary';
  readonly operationId?: string;
  readonly epoch?: string;
  /** The bytes to send instead of the canonical body (the signature then covers what `digestOf` says). */
  readonly rawBody?: string;
  /** Which canonical form the signature hashes (default JCS: the bytes sent are JCS anyway). */
  readonly canonical?: CanonicalForm;
  /** Overrides the signature entirely (`undefined`: none sent). */
  readonly header?: { readonly value: string | undefined };
  /** Overrides the signing key and kid (another enrolled device). */
  readonly signAs?: 'primary' | 'secondary';
  /** Overrides the kid only: the signer's key signs a header naming this kid. */
  readonly kid?: string;
  /** Commit as the account's browser instead of its device. */
  readonly browser?: boolean;
}

export function commitBody(ops: readonly Op[], operationId: string, epoch: string): Record<string, unknown> {
  return { operation_id: operationId, epoch, ops };
}

/** The Service-Signature a device of `env` gives `body` (sent as `bytes`), or undefined without a key. */
export function signatureOf(env: DiscoveryEnv, body: unknown, bytes: string, form: SignForm, o: { account?: 'primary' | 'secondary'; canonical?: CanonicalForm; kid?: string } = {}): string | undefined {
  const d = env.signer(o.account);
  if (!d) return undefined;
  return signServiceSignature({ body, rawBody: Buffer.from(bytes, 'utf8'), kid: o.kid ?? d.deviceId, privateKey: d.privateKey, canonical: o.canonical ?? 'rfc8785', jwsForm: form.jwsForm });
}

/** Commits `ops` to `pouchId`, signed in `form` unless told otherwise. */
export function commit(scope: Scope, what: string, pouchId: string, ops: readonly Op[], form: SignForm, o: CommitOptions = {}): Promise<Exchange> {
  const env = scope.env;
  const body = commitBody(ops, o.operationId ?? env.uuid(), o.epoch ?? env.uuid());
  const bytes = o.rawBody ?? canonicalize(body);
  const header = o.header ? o.header.value : signatureOf(env, body, bytes, form, { account: o.signAs ?? o.account, canonical: o.canonical, ...(o.kid === undefined ? {} : { kid: o.kid }) });
  const account = o.account ?? 'primary';
  return scope.send(what, {
    endpoint: 'commitOperations',
    params: { pouchId },
    rawBody: bytes,
    as: { account, member: o.browser ? 'browser' : 'device' },
    signature: { header },
  });
}

/** The member id a device signs its ops as (a fresh one when the profile does not name it: the field is opaque to the server). */
export function signerId(env: DiscoveryEnv, account: 'primary' | 'secondary' = 'primary'): string {
  return env.identity('device', account)?.memberId ?? env.identity('browser', account)?.memberId ?? env.uuid();
}
