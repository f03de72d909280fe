/**
 * Section 5: a command-line device's commit carries `Service-Signature`, a detached ES256 JWS over
 * the BLAKE3 digest of the canonical body. Without it, or with any forgery of the attack catalogue,
 * the commit is refused and applies nothing; every harmless variant of a valid signature verifies.
 */
import { createPublicKey, randomUUID, type JsonWebKey } from 'node:crypto';
import fc from 'fast-check';
import { SIGNATURE_ATTACKS, type AttackContext, type SignatureAttack } from '../src/crypto/attacks.ts';
import { signServiceSignature } from '../src/crypto/service-signature.ts';
import { expectAccepted, expectRejected } from '../src/check/judge.ts';
import { PASS, defineProperty, type CaseContext, type Outcome, type Property } from '../src/check/property.ts';
import { isObject } from '../src/gen/index.ts';
import { ASSUMPTION_BY_NAME, CHARSETS, LIMITS, PATTERNS } from '../src/spec/index.ts';
import { op, pouchFor, proveNothingApplied, type Op, type Pouch } from './support/commits.ts';

/**
 * A valid one-op commit, with every optional field present or with none: tampering then changes
 * a signed member in one case and adds an unsigned one in the other, and a server that hashes
 * only the members it knows misses the second.
 */
function signedCase(ctx: CaseContext, withOptional = true): { pouch: Pouch; body: Record<string, unknown> } {
  const pouch = pouchFor(ctx);
  const optional = withOptional
    ? { merge_parent_id: null, name_index: CHARSETS.base64url.chars.slice(0, LIMITS.nameIndexLength.min), conflict_id: null }
    : {};
  const o: Op = op(ctx, { type: 'create', artifact: ctx.uuid(), revision: ctx.uuid(), base: null }, { ...optional, blob_ids: [ctx.uuid()] });
  return { pouch, body: { operation_id: ctx.uuid(), epoch: pouch.epoch, ops: [o] } };
}

function attackContext(ctx: CaseContext, pouch: Pouch, body: Record<string, unknown>): AttackContext | undefined {
  const device = ctx.profile.accounts.primary.device;
  if (!device?.privateKey || !device.deviceId) return undefined;
  const other = ctx.profile.accounts.secondary?.device;
  return {
    body,
    pouchId: pouch.id,
    kid: device.deviceId,
    privateKey: device.privateKey,
    publicJwk: createPublicKey(device.privateKey).export({ format: 'jwk' }) as JsonWebKey,
    ...(other?.privateKey && other.deviceId ? { otherDevice: { kid: other.deviceId, privateKey: other.privateKey } } : {}),
  };
}

const artifactsOf = (body: unknown): string[] =>
  isObject(body as never) && Array.isArray((body as { ops?: unknown }).ops)
    ? ((body as { ops: unknown[] }).ops
        .map((o) => (isObject(o as never) ? (o as { artifact_id?: unknown }).artifact_id : undefined))
        .filter((a): a is string => typeof a === 'string' && PATTERNS.uuid.regex.test(a)))
    : [];

/** After a refused commit: the artifacts it named can still be created, so nothing of it applied. */
function appliedNothing(ctx: CaseContext, pouchId: string, artifacts: readonly string[], what: string): Promise<Outcome> {
  const unique = [...new Set(artifacts.map((a) => a.toLowerCase()))];
  return proveNothingApplied(ctx, pouchId, unique.map((artifact) => ({ artifact })), what);
}

/** What the attack must get under the profile's readings; undefined when the catalogue cannot say. */
function expected(ctx: CaseContext, a: SignatureAttack): 'reject' | 'accept' | undefined {
  if (a.expect !== 'assumption') return a.expect;
  const name = a.assumption!;
  return ctx.assumptions[name] === ASSUMPTION_BY_NAME.get(name)?.default ? a.defaultVerdict : undefined;
}

async function runAttack(ctx: CaseContext, a: SignatureAttack, withOptional: boolean): Promise<Outcome> {
  const { pouch, body } = signedCase(ctx, withOptional);
  const actx = attackContext(ctx, pouch, body);
  if (!actx || (a.needs === 'otherDevice' && !actx.otherDevice)) return PASS;
  const want = expected(ctx, a);
  if (!want) return PASS;
  const r = a.apply(actx);
  const ex = await ctx.call({
    endpoint: 'commitOperations',
    params: { pouchId: r.pouchId },
    body: r.body,
    ...(r.rawBody ? { rawBody: r.rawBody } : {}),
    signature: { header: r.header },
  });
  const what = `a device commit with ${a.title} (${a.id})`;
  const reading = a.expect === 'assumption' ? { assumption: a.assumption! } : {};
  if (want === 'accept') return expectAccepted(ex, { what, ...reading });
  const refused = expectRejected(ex, { what, ...reading });
  if (!refused.ok) return refused;
  return appliedNothing(ctx, r.pouchId, [...artifactsOf(body), ...artifactsOf(r.body)], what);
}

/**
 * A forgery the catalogue lacks: a genuine signature by the caller's own key over the ops alone,
 * sent with another operation_id and epoch. A server that hashes only part of the body takes it.
 */
const OPS_ONLY: SignatureAttack = {
  id: 'digest.ops-only',
  title: 'a valid signature over {ops} alone, with operation_id and epoch changed',
  expect: 'reject',
  apply(c) {
    const header = signServiceSignature({ body: { ops: c.body['ops'] }, kid: c.kid, privateKey: c.privateKey });
    return { header, body: { ...c.body, operation_id: randomUUID(), epoch: randomUUID() }, pouchId: c.pouchId };
  },
};

const ATTACKS: readonly SignatureAttack[] = [...SIGNATURE_ATTACKS, OPS_ONLY];

const REJECTS = ATTACKS.filter((a) => a.id !== 'header.missing' && (a.expect === 'reject' || (a.expect === 'assumption' && a.defaultVerdict === 'reject')));
const ACCEPTS = ATTACKS.filter((a) => a.expect === 'accept' || (a.expect === 'assumption' && a.defaultVerdict === 'accept'));

/** Each case sweeps every STRIDE-th attack from a random offset: a run covers the catalogue. */
interface Sweep {
  readonly attacks: readonly string[];
  /** Whether the signed body carries the optional op members. */
  readonly withOptional: boolean;
}

const sweep = (list: readonly SignatureAttack[], stride: number): fc.Arbitrary<Sweep> =>
  fc.record({
    attacks: fc.noBias(fc.integer({ min: 0, max: stride - 1 })).map((offset) => list.filter((_, i) => i % stride === offset).map((a) => a.id)),
    withOptional: fc.boolean(),
  });

const byId = new Map(ATTACKS.map((a) => [a.id, a]));

async function runAll(ctx: CaseContext, c: Sweep): Promise<Outcome> {
  let note: Outcome = PASS;
  for (const id of c.attacks) {
    if (ctx.signal.aborted) break;
    const o = await runAttack(ctx, byId.get(id)!, c.withOptional);
    if (!o.ok && o.kind !== 'assumption') return o;
    if (!o.ok && note.ok) note = o;
  }
  return note;
}

// 5: command-line devices must send Service-Signature on the commit.
const headerRequired = defineProperty({
  id: 'signatures.header-required',
  section: '5',
  invariant: 'A command-line device\'s commit without Service-Signature is refused and applies nothing.',
  assumptions: ['pouch-existence'],
  needs: ['device'],
  arbitrary: () => fc.record({ header: fc.constantFrom('absent', 'renamed') }),
  async check(ctx, c) {
    const { pouch, body } = signedCase(ctx);
    const ex = await ctx.call({
      endpoint: 'commitOperations',
      params: { pouchId: pouch.id },
      body,
      signature: 'omit',
      ...(c.header === 'renamed' ? { headers: { 'x-service-signature': 'e30..AAAA' } } : {}),
    });
    const what = `a device commit without Service-Signature${c.header === 'renamed' ? ' (sent under another header name)' : ''}`;
    const refused = expectRejected(ex, { what });
    if (!refused.ok) return refused;
    return appliedNothing(ctx, pouch.id, artifactsOf(body), what);
  },
});

// 5: every forgery of the catalogue is refused and applies nothing.
const forgeriesRejected = defineProperty({
  id: 'signatures.forgeries-rejected',
  section: '5',
  invariant: 'A device commit whose Service-Signature is forged, malformed, by the wrong key or over another body is refused and applies nothing.',
  assumptions: ['canonical-json', 'jws-form', 'kid-binding', 'duplicate-keys', 'pouch-existence'],
  needs: ['device'],
  arbitrary: () => sweep(REJECTS, 4),
  check: runAll,
});

// 5: what the spec leaves free (header layout, nonce, high-S under RFC 7518) must verify.
const variantsAccepted = defineProperty({
  id: 'signatures.variants-accepted',
  section: '5',
  invariant: 'Every valid variant of a correct signature (header member order and whitespace, typ, hedged nonce, high-S, canonical re-spellings) is accepted.',
  assumptions: ['canonical-json', 'high-s-accepted', 'jws-form', 'pouch-existence'],
  needs: ['device'],
  arbitrary: () => sweep(ACCEPTS, 3),
  check: runAll,
});

const SIGNATURES: readonly Property[] = [headerRequired, forgeriesRejected, variantsAccepted];
export default SIGNATURES;
