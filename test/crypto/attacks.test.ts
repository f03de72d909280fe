import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ASSUMPTION_BY_NAME, DEFAULT_ASSUMPTIONS, PouchOperation, commitOperations, schemasOf } from '../../src/spec/index.ts';
import { SIGNATURE_ATTACKS, type AttackContext, type AttackResult, type SignatureAttack } from '../../src/crypto/attacks.ts';
import { canonicalize } from '../../src/crypto/canonical.ts';
import { generateDeviceKey, privateKeyFromJwk, publicKeyFromJwk } from '../../src/crypto/keys.ts';
import { verifyServiceSignature } from '../../src/crypto/service-signature.ts';
import { commitBody } from './fixtures.ts';

const device = generateDeviceKey();
const other = generateDeviceKey();
const ctx: AttackContext = {
  body: commitBody(2, 'attacks'),
  pouchId: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  kid: '11111111-2222-4333-8444-555555555555',
  privateKey: privateKeyFromJwk(device.privateJwk),
  publicJwk: device.publicJwk,
  otherDevice: { kid: '66666666-7777-4888-9999-aaaaaaaaaaaa', privateKey: privateKeyFromJwk(other.privateJwk) },
};
const enrolled = new Map([
  [ctx.kid, publicKeyFromJwk(device.publicJwk)],
  [ctx.otherDevice!.kid, publicKeyFromJwk(other.publicJwk)],
]);

/** What a default server does with the attack's request, signature-wise. */
function verdict(r: AttackResult) {
  const rawBody = r.rawBody ?? Buffer.from(JSON.stringify(r.body));
  return verifyServiceSignature({
    header: r.header, rawBody, parsedBody: JSON.parse(Buffer.from(rawBody).toString('utf8')),
    keyFor: (kid) => enrolled.get(kid), expectedKid: ctx.kid,
  });
}

const byExpect = (e: SignatureAttack['expect']) => SIGNATURE_ATTACKS.filter((a) => a.expect === e);

describe('signature attack catalogue', () => {
  it('has ≥30 must-reject and ≥5 must-accept entries with unique ids', () => {
    expect(byExpect('reject').length).toBeGreaterThanOrEqual(30);
    expect(byExpect('accept').length).toBeGreaterThanOrEqual(5);
    expect(new Set(SIGNATURE_ATTACKS.map((a) => a.id)).size).toBe(SIGNATURE_ATTACKS.length);
  });
  it('names a registered assumption and a default verdict on exactly the assumption entries', () => {
    for (const a of SIGNATURE_ATTACKS) {
      if (a.expect === 'assumption') {
        expect(ASSUMPTION_BY_NAME.has(a.assumption!), a.id).toBe(true);
        expect(['reject', 'accept'], a.id).toContain(a.defaultVerdict);
      } else expect(a.assumption, a.id).toBeUndefined();
    }
  });
  it('covers the required attacks', () => {
    const ids = new Set(SIGNATURE_ATTACKS.map((a) => a.id));
    for (const id of [
      'header.missing', 'header.empty', 'header.garbage', 'header.two-dots', 'alg.none-unsigned', 'alg.none-with-signature', 'alg.lowercase',
      'alg.hs256-pem', 'alg.hs256-jwk', 'alg.es384', 'alg.es512', 'crit.unknown', 'b64.false-without-crit', 'alg.duplicate-es256-none',
      'key.embedded-jwk', 'kid.wrong', 'key.unenrolled', 'sig.r0-s0', 'sig.r-equals-n', 'sig.s-equals-n', 'sig.s-plus-n', 'sig.truncated-63',
      'sig.trailing-zero-65', 'sig.der', 'sig.padded', 'sig.standard-alphabet', 'digest.sha256', 'digest.hex', 'digest.signed-raw',
      'jws.attached-other-body', 'replay.other-body', 'replay.other-pouch', 'device.other',
      'ok.original', 'ok.header-whitespace', 'ok.high-s', 'ok.reordered-keys', 'ok.pretty-printed', 'ok.unicode-escaped',
      ...Object.keys(commitOperations.body.fields).map((f) => `body.${f}-changed`),
      ...Object.keys(PouchOperation.fields).map((f) => `body.op.${f}-changed`),
    ]) expect(ids.has(id), id).toBe(true);
  });

  it.each(SIGNATURE_ATTACKS.map((a) => [a.id, a.expect, a] as const))('%s (%s)', (_id, _e, a) => {
    const r = a.apply(ctx);
    const v = verdict(r);
    const want = a.expect === 'assumption' ? a.defaultVerdict : a.expect;
    expect(v.ok ? 'accept' : 'reject', `${a.id}: ${JSON.stringify(v)}`).toBe(want);
    // Deterministic: the same context gives the same bytes.
    expect(isDeepStrictEqual(a.apply(ctx), r), `${a.id} is not deterministic`).toBe(true);
    expect(r.pouchId === ctx.pouchId).toBe(a.id !== 'replay.other-pouch');
  });

  it('changes only what each attack is about: the body stays schema-valid, the signature is the variable', () => {
    const schema = schemasOf(commitOperations).body;
    for (const a of SIGNATURE_ATTACKS) {
      const r = a.apply(ctx);
      expect(schema.safeParse(r.body).success, `${a.id} body is not schema-valid`).toBe(true);
      expect(r.rawBody, a.id).toBeDefined();
      if (a.id.startsWith('body.')) expect(canonicalize(r.body), a.id).not.toBe(canonicalize(ctx.body));
      else expect(canonicalize(r.body), a.id).toBe(canonicalize(ctx.body));
    }
  });
  it('wire-form entries really change the wire bytes but not the parsed body', () => {
    for (const id of ['ok.reordered-keys', 'ok.pretty-printed', 'ok.unicode-escaped', 'ok.number-spelling']) {
      const r = SIGNATURE_ATTACKS.find((a) => a.id === id)!.apply(ctx);
      const text = Buffer.from(r.rawBody!).toString('utf8');
      expect(text, id).not.toBe(canonicalize(ctx.body));
      expect(canonicalize(JSON.parse(text)), id).toBe(canonicalize(ctx.body));
    }
  });
  it('canonical-json entries fail under raw-bytes, and sig.standard-alphabet really uses + or /', () => {
    for (const a of SIGNATURE_ATTACKS.filter((x) => x.assumption === 'canonical-json')) {
      const r = a.apply(ctx);
      const v = verifyServiceSignature({ header: r.header, rawBody: r.rawBody!, parsedBody: r.body, keyFor: (k) => enrolled.get(k), expectedKid: ctx.kid, canonical: 'raw-bytes' });
      expect(v.ok, a.id).toBe(false);
    }
    expect(SIGNATURE_ATTACKS.find((a) => a.id === 'sig.standard-alphabet')!.apply(ctx).header).toMatch(/[+/]/);
  });
  it('alternative readings flip their entries: high-S rejected, unbound kid, b64-text-payload', () => {
    const run = (id: string, o: Partial<Parameters<typeof verifyServiceSignature>[0]>) => {
      const r = SIGNATURE_ATTACKS.find((a) => a.id === id)!.apply(ctx);
      return verifyServiceSignature({ header: r.header, rawBody: r.rawBody!, parsedBody: r.body, keyFor: (k) => enrolled.get(k), expectedKid: ctx.kid, ...o }).ok;
    };
    expect(run('ok.high-s', { highS: 'rejected' })).toBe(false);
    expect(run('device.other', { expectedKid: undefined })).toBe(true);
    expect(run('kid.wrong', { expectedKid: undefined, callerKey: { key: enrolled.get(ctx.kid) } })).toBe(true);
    expect(run('jws.b64-text-payload', { jwsForm: 'b64-text-payload' })).toBe(true);
    expect(run('kid.missing', { kidRequired: false })).toBe(true);
    expect(DEFAULT_ASSUMPTIONS['kid-binding']).toBe('bound');
  });
  /** The verifier set up as each reading an attack names in `verdictsUnder` (or kid-binding's, below). */
  const AS_READING: Readonly<Record<string, Partial<Parameters<typeof verifyServiceSignature>[0]>>> = {
    'high-s-accepted=rejected': { highS: 'rejected' },
    'jws-form=b64-text-payload': { jwsForm: 'b64-text-payload' },
    'kid-binding=bound': {},
    'kid-binding=unbound': { expectedKid: undefined },
    'kid-binding=caller-key': { expectedKid: undefined, callerKey: { key: enrolled.get(ctx.kid) } },
  };
  const verdictAs = (a: SignatureAttack, reading: string): 'accept' | 'reject' => {
    const r = a.apply(ctx);
    const rawBody = r.rawBody ?? Buffer.from(JSON.stringify(r.body));
    const parsedBody = JSON.parse(Buffer.from(rawBody).toString('utf8'));
    return verifyServiceSignature({ header: r.header, rawBody, parsedBody, keyFor: (k) => enrolled.get(k), expectedKid: ctx.kid, ...AS_READING[reading] }).ok ? 'accept' : 'reject';
  };
  it.each(SIGNATURE_ATTACKS.filter((a) => a.verdictsUnder).map((a) => [a.id, a] as const))('%s: each verdict under an alternative is what a verifier of that reading gives', (_id, a) => {
    for (const v of a.verdictsUnder!) {
      const reading = `${a.assumption}=${v.value}`;
      expect(AS_READING[reading], `${reading} has a verifier set-up here`).toBeDefined();
      expect(verdictAs(a, reading), `${a.id} under ${reading}`).toBe(v.verdict);
    }
  });
  it('kid-binding decides no verdict but its own cases: every other entry is the same under bound, unbound and caller-key', () => {
    const readings = ['kid-binding=bound', 'kid-binding=unbound', 'kid-binding=caller-key'];
    const kidCases = SIGNATURE_ATTACKS.filter((a) => a.assumption === 'kid-binding').map((a) => a.id);
    expect(kidCases.sort()).toEqual(['device.other', 'device.other-key-own-kid', 'kid.missing', 'kid.number', 'kid.wrong']);
    for (const a of SIGNATURE_ATTACKS.filter((x) => x.assumption !== 'kid-binding')) {
      const want = a.expect === 'assumption' ? a.defaultVerdict : a.expect;
      for (const r of readings) expect(verdictAs(a, r), `${a.id} under ${r}`).toBe(want);
    }
  });
  it('entries that need another device say so', () => {
    for (const a of SIGNATURE_ATTACKS) {
      const { otherDevice: _, ...alone } = ctx;
      if (a.needs === 'otherDevice') expect(() => a.apply(alone)).toThrow();
      else expect(() => a.apply(alone), a.id).not.toThrow();
    }
  });
});
