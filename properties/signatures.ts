/**
 * Section 5: a command-line device's commit carries `Service-Signature`, a detached ES256 JWS over
 * the BLAKE3 digest of the canonical body. Without it, or with any forgery of the attack catalogue,
 * the commit is refused and applies nothing; every harmless variant of a valid signature verifies.
 */
import { createPublicKey, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { GROUNDS, SIGNATURE_ATTACKS, type AttackContext, type SignatureAttack, signServiceSignature } from '../src/crypto/index.ts';
import { blame, refusedAfterResend, unexpected, type Blame } from '../src/check/judge/judge.ts';
import { specJudgement, type ReadsDeclaration } from '../src/check/judge/judgements.ts';
import { PASS, defineProperty, notApplicable, unknownOutcome, type CaseContext, type Outcome, type Property } from '../src/check/property.ts';
import { isObject } from '../src/gen/index.ts';
import { assumptionOf, CHARSETS, LIMITS, PATTERNS, must } from '../src/spec/index.ts';
import { commit, fates, op, pouchFor, proveNothingApplied, setup, type Op, type Pouch } from './support/commits.ts';

// Whether a one-op commit applied (its result, matched to the op) and whether a later create of its
// artifact proves it did: no signing reading decides either, since every one refuses an unsigned or
// forged device commit; an attack that some reading lets through blames that reading, not these.
const APPLIED_READS: ReadsDeclaration = { reads: ['op-semantics', 'commit-results'] };
/** §5: a device's commit without the header is not taken. */
const HEADER_REQUIRED = specJudgement('signatures.header-required', 'A command-line device\'s commit without Service-Signature is refused and applies nothing.', 'signatureRequired', APPLIED_READS);
/** §5: the header is an ES256 JWS over the body's digest; anything else does not verify, and a correct one does. */
const SIGNATURE_FORM = specJudgement(
  'signatures.form',
  'A Service-Signature that is not a valid ES256 JWS by the caller\'s key over the body\'s BLAKE3 digest is refused and applies nothing; one that is (in any form the spec leaves free) is accepted when the plainly signed commit is.',
  'signatureForm',
  APPLIED_READS,
);

/**
 * A valid one-op commit, with every optional field present or with none: tampering then changes
 * a signed member in one case and adds an unsigned one in the other, and a server that hashes
 * only the members it knows misses the second.
 */
function signedCase(ctx: CaseContext, withOptional = true): { pouch: Pouch; body: Record<string, unknown>; ops: Op[] } {
  const pouch = pouchFor(ctx);
  const optional = withOptional
    ? { merge_parent_id: null, name_index: CHARSETS.base64url.chars.slice(0, LIMITS.nameIndexLength.min), conflict_id: null }
    : {};
  const o: Op = op(ctx, { type: 'create', artifact: ctx.uuid(), revision: ctx.uuid(), base: null }, { ...optional, blob_ids: [ctx.uuid()] });
  return { pouch, body: { operation_id: ctx.uuid(), epoch: pouch.epoch, ops: [o] }, ops: [o] };
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
    publicJwk: createPublicKey(device.privateKey).export({ format: 'jwk' }),
    // Every forgery and variant in the form the run reads, so the catalogue checks either reading of jws-form.
    jwsForm: ctx.assumptions['jws-form'],
    ...(other?.privateKey && other.deviceId ? { otherDevice: { kid: other.deviceId, privateKey: other.privateKey } } : {}),
  };
}

/** The artifacts a commit body names, each with the revision its op would set (when well-formed). */
const artifactsOf = (body: unknown): { artifact: string; revision?: string }[] =>
  isObject(body) && Array.isArray(body.ops)
    ? body.ops.flatMap((o) => {
        if (!isObject(o)) return [];
        const { artifact_id: artifact, revision_id: revision } = o;
        if (typeof artifact !== 'string' || !PATTERNS.uuid.regex.test(artifact)) return [];
        return [{ artifact, ...(typeof revision === 'string' && PATTERNS.uuid.regex.test(revision) ? { revision } : {}) }];
      })
    : [];

/** After a refused commit: the artifacts it named can still be created, so nothing of it applied. */
function appliedNothing(ctx: CaseContext, pouchId: string, artifacts: readonly { artifact: string; revision?: string }[], what: string, onApplied: Blame): Promise<Outcome> {
  const seen = new Set<string>();
  const unique = artifacts.filter((a) => !seen.has(a.artifact.toLowerCase()) && seen.add(a.artifact.toLowerCase()));
  return proveNothingApplied(ctx, pouchId, unique, what, onApplied);
}

/** What the attack must get under the profile's readings; undefined when the catalogue cannot say. */
function expected(ctx: CaseContext, a: SignatureAttack): 'reject' | 'accept' | undefined {
  if (a.expect !== 'assumption') return a.expect;
  const name = a.assumption;
  if (name === undefined) return undefined;
  const chosen = ctx.assumptions[name];
  if (chosen === assumptionOf(name).default) return a.defaultVerdict;
  return a.verdictsUnder?.find((v) => v.value === chosen)?.verdict;
}

/**
 * A valid variant was refused: the same commit, plainly signed, is the control. Accepted, the
 * variant's signature was refused for what the spec leaves free; refused too, the setup judge says
 * what the target does not take.
 */
async function variantRefused(ctx: CaseContext, pouch: Pouch, sent: readonly Op[], what: string, b: Blame, answer: string): Promise<Outcome> {
  const ops = sent.map((o) => ({ ...o, artifact_id: ctx.uuid(), revision_id: ctx.uuid() }));
  const ex = await commit(ctx, pouch, ops);
  const s = await setup(ctx, pouch, ex, ops, `the control: the same commit plainly signed after ${what}`);
  if (!s.ok) return s;
  return blame(b, `${what}: refused (${answer}), while the same commit plainly signed is accepted`);
}

async function runAttack(ctx: CaseContext, a: SignatureAttack, withOptional: boolean): Promise<Outcome> {
  const { pouch, body, ops } = signedCase(ctx, withOptional);
  const actx = attackContext(ctx, pouch, body);
  if (!actx || (a.needs === 'otherDevice' && !actx.otherDevice)) return notApplicable(`${a.id} needs ${a.needs === 'otherDevice' ? 'a second enrolled device' : 'the device\'s key'}, which the profile does not give`);
  const want = expected(ctx, a);
  if (!want) return notApplicable(`${a.id}: the catalogue says nothing of it under the run's reading of ${a.assumption}`);
  if (a.first === 'original') {
    // What the attack replays must first have been accepted: a refused original leaves nothing to replay (variants-accepted judges it).
    const o = ORIGINAL.apply(actx);
    const first = await ctx.call({ endpoint: 'commitOperations', params: { pouchId: o.pouchId }, body: o.body, ...(o.rawBody ? { rawBody: o.rawBody } : {}), signature: { header: o.header } });
    const u = unexpected(first, `the original of ${a.id}`);
    if (u) return u;
    const f = fates(ctx, first, ops);
    // Its fate unknown (a copy resent after no answer, results that name no op sent), the case shows nothing: unknown, not left out of the floor.
    if (f.batch === 'unknown') return unknownOutcome(`${a.id}: whether the plainly signed original was applied is unknown (${f.answer}), so what replaying it shows is too`);
    if (f.batch !== 'applied') return notApplicable(`${a.id}: the plainly signed original was not applied, so there is nothing to replay`);
  }
  const r = a.apply(actx);
  // Under must-exist only listed pouches take commits: an attack sent to another pouch id proves nothing.
  if (r.pouchId !== pouch.id && ctx.assumptions['pouch-existence'] === 'must-exist') return notApplicable(`${a.id} sends to another pouch id, which under pouch-existence=must-exist takes no commit: it proves nothing`);
  const ex = await ctx.call({
    endpoint: 'commitOperations',
    params: { pouchId: r.pouchId },
    body: r.body,
    ...(r.rawBody ? { rawBody: r.rawBody } : {}),
    signature: { header: r.header },
  });
  const what = `a device commit with ${a.title} (${a.id})`;
  const b: Blame = a.expect === 'assumption' && a.assumption ? { assumption: a.assumption } : { judgement: SIGNATURE_FORM };
  const u = unexpected(ex, what);
  if (u) return u;
  // The attack's own ops where it sent some (an attack body is built from this case's ops), else the case's.
  const sent = isObject(r.body) && Array.isArray(r.body.ops) ? (r.body.ops as Op[]) : [];
  const f = fates(ctx, ex, sent.length ? sent : ops);
  if (want === 'accept') {
    if (f.batch === 'applied' || f.unreadable) return PASS;
    // Refused after a nemesis resend, the variant may be refused for its own first copy: the control proves nothing of it.
    return refusedAfterResend(ex) ?? variantRefused(ctx, pouch, ops, what, b, f.answer);
  }
  if (f.ops.some((x) => x === 'applied')) return blame(b, `${what}: applied (${f.answer})`);
  // The original of a replay applied by design: only what the attack's own body names must be free.
  return appliedNothing(ctx, r.pouchId, a.first === 'original' ? artifactsOf(r.body) : [...artifactsOf(body), ...artifactsOf(r.body)], what, b);
}

/**
 * A forgery the catalogue lacks: a genuine signature by the caller's own key over the ops alone,
 * sent with another operation_id and epoch. A server that hashes only part of the body takes it.
 */
const OPS_ONLY: SignatureAttack = {
  id: 'digest.ops-only',
  title: 'a valid signature over {ops} alone, with operation_id and epoch changed',
  expect: 'reject',
  // The JWS is over the hash of {ops}, not of the body sent.
  rests: [GROUNDS.form],
  apply(c) {
    const header = signServiceSignature({ body: { ops: c.body['ops'] }, kid: c.kid, privateKey: c.privateKey, ...(c.jwsForm ? { jwsForm: c.jwsForm } : {}) });
    return { header, body: { ...c.body, operation_id: randomUUID(), epoch: randomUUID() }, pouchId: c.pouchId };
  },
};

/** The attacks this module adds to the catalogue's (docs/defects.md lists them with it). */
export const PROPERTY_ATTACKS: readonly SignatureAttack[] = [OPS_ONLY];
const ATTACKS: readonly SignatureAttack[] = [...SIGNATURE_ATTACKS, ...PROPERTY_ATTACKS];
/** The plainly signed commit: what an attack with `first: 'original'` sends before itself. */
const ORIGINAL = must(SIGNATURE_ATTACKS.find((a) => a.id === 'ok.original'), 'the attack catalogue defines ok.original');

const REJECTS = ATTACKS.filter((a) => a.id !== 'header.missing' && (a.expect === 'reject' || (a.expect === 'assumption' && a.defaultVerdict === 'reject')));
const ACCEPTS = ATTACKS.filter((a) => a.expect === 'accept' || (a.expect === 'assumption' && a.defaultVerdict === 'accept'));

/** Each case sweeps every STRIDE-th attack from a random offset: a run covers the catalogue. */
interface Sweep {
  readonly attacks: readonly string[];
  /** Whether the signed body carries the optional op members. */
  readonly withOptional: boolean;
}

// Each sweep starts at a drawn attack of its residue and wraps around: a case stops at its first
// failing attack, so two failing attacks of one residue are each the first of some case.
const sweep = (list: readonly SignatureAttack[], stride: number): fc.Arbitrary<Sweep> =>
  fc.record({
    attacks: fc.tuple(fc.noBias(fc.integer({ min: 0, max: stride - 1 })), fc.noBias(fc.nat())).map(([offset, start]) => {
      const ids = list.filter((_, i) => i % stride === offset).map((a) => a.id);
      const at = start % ids.length;
      return [...ids.slice(at), ...ids.slice(0, at)];
    }),
    withOptional: fc.boolean(),
  });

const byId = new Map(ATTACKS.map((a) => [a.id, a]));

/** A failure names its attack: each failing attack is a finding of its own (random-phase.ts). */
function partOf(id: string, o: Outcome): Outcome {
  return !o.ok && (o.kind === 'violation' || o.kind === 'server-error') ? { ...o, part: id } : o;
}

/**
 * Every attack of the sweep, in order: a failure ends it; an attack that does not apply under the
 * run's readings, or that nothing decides, is passed over so the attacks after it are still sent (a
 * sweep that ended there let a later attack's defect go unseen).
 */
async function runAll(ctx: CaseContext, c: Sweep): Promise<Outcome> {
  let note: Outcome = PASS;
  let unjudged: Outcome | undefined;
  let skipped: Outcome | undefined;
  let judged = false;
  for (const id of c.attacks) {
    if (ctx.signal.aborted) break;
    const o = partOf(id, await runAttack(ctx, must(byId.get(id), `sweeps draw attack ids from the catalogue (${id})`), c.withOptional));
    if (o.ok) judged = true;
    else if (o.kind === 'assumption') {
      judged = true;
      if (note.ok) note = o;
    } else if (o.kind === 'not-applicable') skipped ??= o;
    else if (o.kind === 'unknown') unjudged ??= o;
    else return o;
  }
  // What could not be judged keeps the case from vouching; a sweep of which nothing applied is not applicable.
  return unjudged ?? (judged || !skipped ? note : skipped);
}

// 5: command-line devices must send Service-Signature on the commit.
const headerRequired = defineProperty({
  id: 'signatures.header-required',
  section: '5',
  invariant: 'A command-line device\'s commit without Service-Signature is refused and applies nothing.',
  assumptions: ['pouch-existence'],
  judgements: [HEADER_REQUIRED],
  needs: ['device', 'pouch'],
  arbitrary: () => fc.record({ header: fc.constantFrom('absent', 'renamed') }),
  async check(ctx, c) {
    const { pouch, body, ops } = signedCase(ctx);
    const ex = await ctx.call({
      endpoint: 'commitOperations',
      params: { pouchId: pouch.id },
      body,
      signature: 'omit',
      ...(c.header === 'renamed' ? { headers: { 'x-service-signature': 'e30..AAAA' } } : {}),
    });
    const what = `a device commit without Service-Signature${c.header === 'renamed' ? ' (sent under another header name)' : ''}`;
    const u = unexpected(ex, what);
    if (u) return u;
    const f = fates(ctx, ex, ops);
    if (f.ops.some((x) => x === 'applied')) return blame({ judgement: HEADER_REQUIRED }, `${what}: applied (${f.answer})`);
    return appliedNothing(ctx, pouch.id, artifactsOf(body), what, { judgement: HEADER_REQUIRED });
  },
});

// 5: every forgery of the catalogue is refused and applies nothing.
const forgeriesRejected = defineProperty({
  id: 'signatures.forgeries-rejected',
  section: '5',
  invariant: 'A device commit whose Service-Signature is forged, malformed, by the wrong key or over another body is refused and applies nothing.',
  assumptions: ['canonical-json', 'jws-form', 'kid-binding', 'high-s-accepted', 'duplicate-keys', 'pouch-existence'],
  judgements: [SIGNATURE_FORM],
  needs: ['device', 'pouch'],
  arbitrary: () => sweep(REJECTS, 4),
  check: runAll,
});

// 5: what the spec leaves free (header layout, nonce, high-S under RFC 7518) must verify.
const variantsAccepted = defineProperty({
  id: 'signatures.variants-accepted',
  section: '5',
  invariant: 'Every valid variant of a correct signature (header member order and whitespace, typ, hedged nonce, high-S, canonical re-spellings) is accepted.',
  assumptions: ['canonical-json', 'high-s-accepted', 'jws-form', 'kid-binding', 'duplicate-keys', 'pouch-existence'],
  judgements: [SIGNATURE_FORM],
  needs: ['device', 'pouch'],
  arbitrary: () => sweep(ACCEPTS, 3),
  check: runAll,
});

const SIGNATURES: readonly Property[] = [headerRequired, forgeriesRejected, variantsAccepted];
export default SIGNATURES;
