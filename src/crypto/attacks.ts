/**
 * The signature attack catalogue: named transformations of a valid signed commit (body + header)
 * that a server must reject, must accept, or whose verdict depends on a named assumption. Each
 * `apply` is deterministic for a given context (RFC 6979 signing, keys derived from fixed labels),
 * so a finding can be replayed byte for byte.
 *
 * Every result carries `rawBody`, the exact bytes to send. Unless the attack is about the wire form,
 * that is the JCS text of the body, so the verdict does not depend on assumption `canonical-json`.
 * For `assumption` entries, `defaultVerdict` is what the signature check gives under the default
 * readings of the registry (src/spec/assumptions.ts). Every entry names the words it rests on
 * (`rests`, src/crypto/attack-grounds.ts): a sentence of SPEC.md or of RFC 7515 / RFC 7518 for a
 * plain verdict, the readings of its assumption for the rest.
 */
import { createHash, createHmac, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { sha384, sha512 } from '@noble/hashes/sha2.js';
import { blake3 as blake3Xof } from '@noble/hashes/blake3.js';
import {
  CHARSETS, LIMITS, MAX_SAFE, PouchOperation, UUID_MAX, UUID_NIL, commitOperations, isRecord,
  type AssumptionName, type Node, type ReadingOf,
} from '../spec/index.ts';
import {
  bigintOf, bytesOf, derOf, ecdsaSign, joinRs, labelledScalar, publicJwkOfScalar, rsOf, scalarOf, selfSignedCertificate,
} from './attack-signing.ts';
import { GROUNDS as G, reading, type AttackGround } from './attack-grounds.ts';
import { b64u } from './base64url.ts';
import { blake3 } from './blake3.ts';
import { canonicalize } from './canonical.ts';
import { P256_N, payloadOf, signingInput, type JwsForm } from './service-signature.ts';

export type AttackExpectation = 'reject' | 'accept' | 'assumption';
export interface AttackContext {
  body: Record<string, unknown>;
  pouchId: string;
  kid: string;
  privateKey: KeyObject;
  publicJwk: JsonWebKey;
  /** another device of the same service (e.g. the second account's), when the profile has one */
  otherDevice?: { kid: string; privateKey: KeyObject };
  /**
   * The JWS form the target reads (assumption `jws-form`, default `digest-payload`): every forgery
   * and variant is built in it, so the catalogue checks a target under either reading; the entries
   * about the form itself depend on that reading.
   */
  jwsForm?: JwsForm;
}
export interface AttackResult {
  header: string | undefined /* undefined: send no header */;
  body: unknown;
  rawBody?: Uint8Array;
  pouchId: string;
}
/** The verdict under one reading of the assumption `N` an attack depends on. */
export interface VerdictUnder<N extends AssumptionName> {
  readonly value: ReadingOf<N>;
  readonly verdict: 'reject' | 'accept';
}
export interface SignatureAttack {
  id: string;
  title: string;
  expect: AttackExpectation;
  assumption?: AssumptionName;
  /** For `assumption` entries: the signature check's verdict under the registry's default readings. */
  defaultVerdict?: 'reject' | 'accept';
  /**
   * The verdicts under alternative readings, where the registry's words for each decide it ("only
   * low-S signatures verify", "whatever the kid says"); under any other alternative the attack proves
   * nothing and is not judged.
   */
  verdictsUnder?: readonly { readonly value: ReadingOf<AssumptionName>; readonly verdict: 'reject' | 'accept' }[];
  /**
   * The words the verdict rests on: a clause of SPEC.md or a sentence of RFC 7515 / 7518 for
   * `reject` and `accept`; for `assumption`, the readings of `assumption` (and any sentence that
   * makes the question open).
   */
  rests: readonly [AttackGround, ...AttackGround[]];
  needs?: 'otherDevice';
  /**
   * `original`: the plainly signed commit is sent first and must apply; the attack then replays
   * what it learnt from that exchange (a verifier that caches results is only fooled the second time).
   */
  first?: 'original';
  apply(ctx: AttackContext): AttackResult;
}

// ---------------------------------------------------------------------------------------------
// Building blocks

const enc = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));
const headerJson = (kid: string): string => `{"alg":"ES256","kid":${JSON.stringify(kid)}}`;
const digestOf = (body: unknown): Uint8Array => blake3(canonicalize(body));
const wireOf = (body: unknown): Uint8Array => enc(canonicalize(body));
const ATTACKER = labelledScalar('attacker key');
const ATTACKER_CERTIFICATE = selfSignedCertificate(ATTACKER, 'pouchproof attacker');

/** The JWS payload of `body` in the form the target reads: its digest, or the digest's base64url text. */
const payloadFor = (ctx: AttackContext, body: unknown = ctx.body): Uint8Array => payloadOf(digestOf(body), ctx.jwsForm);

/** A detached JWS: header JSON text as given, payload = `body`'s in the context's form unless given. */
function detached(ctx: AttackContext, header: string, d: Uint8Array, body: unknown, opts: { payload?: Uint8Array; prehash?: boolean; entropy?: Uint8Array } = {}): string {
  const seg = b64u(header);
  const payload = opts.payload ?? payloadFor(ctx, body);
  return `${seg}..${b64u(ecdsaSign(signingInput(seg, payload), d, opts))}`;
}

function signedBy(ctx: AttackContext, header = headerJson(ctx.kid), body: unknown = ctx.body): string {
  return detached(ctx, header, scalarOf(ctx.privateKey), body);
}

function parts(h: string): { seg: string; sig: Uint8Array } {
  const [seg, , sig] = h.split('.');
  return { seg, sig: new Uint8Array(Buffer.from(sig, 'base64url')) };
}

function withSignature(ctx: AttackContext, f: (sig: Uint8Array) => Uint8Array | string): AttackResult {
  const { seg, sig } = parts(signedBy(ctx));
  const s = f(sig);
  return plain(ctx, `${seg}..${typeof s === 'string' ? s : b64u(s)}`);
}

function plain(ctx: AttackContext, header: string | undefined, body: unknown = ctx.body, rawBody?: Uint8Array): AttackResult {
  return { header, body, rawBody: rawBody ?? wireOf(body), pouchId: ctx.pouchId };
}

function derivedUuid(label: string): string {
  const h = createHash('sha256').update(`pouchproof/uuid/${label}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const HEX = '0123456789abcdef';
/** Another valid UUID: the first hex digit (unconstrained by version and variant) moved on by one. */
function otherUuid(u: string, label: string): string {
  const i = HEX.indexOf(u[0].toLowerCase());
  if (i < 0 || u.toLowerCase() === UUID_NIL || u.toLowerCase() === UUID_MAX) return derivedUuid(label);
  return HEX[(i + 1) % 16] + u.slice(1);
}

/** A value of the same spec type as `value` but different, staying inside the stated limits. */
function changed(node: Node, value: unknown, label: string): unknown {
  switch (node.kind) {
    case 'uuid':
      return typeof value === 'string' ? otherUuid(value, label) : derivedUuid(label);
    case 'enum': {
      const i = typeof value === 'string' ? node.values.indexOf(value) : -1;
      return node.values[(i + 1) % node.values.length];
    }
    case 'string': {
      const chars = CHARSETS[node.charset ?? 'base64url'].chars;
      if (typeof value === 'string' && value.length > 0) {
        const i = chars.indexOf(value[0]);
        return chars[(i + 1) % chars.length] + value.slice(1);
      }
      return chars[0].repeat(Math.max(1, (node.length && LIMITS[node.length].min) || 1));
    }
    case 'integer': {
      const lim = node.range ? LIMITS[node.range] : undefined;
      const max = lim?.max ?? MAX_SAFE;
      if (typeof value === 'number') return value < max ? value + 1 : value - 1;
      return lim?.min ?? 1;
    }
    case 'boolean':
      return value !== true;
    case 'array': {
      const min = node.count ? (LIMITS[node.count].min ?? 0) : 0;
      const items: readonly unknown[] = Array.isArray(value) ? value : [];
      if (items.length > Math.max(min, 1)) return items.slice(0, -1);
      return [...items, changed(node.items, items[items.length - 1], `${label}/item`)];
    }
    case 'object': {
      const out: Record<string, unknown> = value !== null && typeof value === 'object' ? { ...value } : {};
      for (const [k, f] of Object.entries(node.fields)) if (f.node.kind === 'uuid' && k in out) out[k] = changed(f.node, out[k], `${label}/${k}`);
      return out;
    }
    default:
      return node satisfies never;
  }
}

/** The second device of an attack that `needs: 'otherDevice'`: the runner applies such an attack only where the profile gives one. */
function otherDevice(ctx: AttackContext): { kid: string; privateKey: KeyObject } {
  if (!ctx.otherDevice) throw new Error('an attack that needs a second device was applied without one (its `needs` is checked before apply)');
  return ctx.otherDevice;
}

function firstOp(ctx: AttackContext): Record<string, unknown> {
  const ops = ctx.body['ops'];
  const op: unknown = Array.isArray(ops) ? ops[0] : undefined;
  return isRecord(op) ? op : {};
}

/** The body with ops[0][field] changed (signed over the original). */
function opFieldChanged(ctx: AttackContext, field: string): Record<string, unknown> {
  const body = structuredClone(ctx.body);
  const ops: unknown[] = Array.isArray(body['ops']) ? body['ops'] : (body['ops'] = [{}]);
  const op = { ...firstOp(ctx) };
  op[field] = changed(PouchOperation.fields[field].node, op[field], `op/${field}`);
  ops[0] = op;
  return body;
}

/** The same commit with another operation_id and its first op creating another artifact under another revision id. */
function otherCommit(ctx: AttackContext): Record<string, unknown> {
  const body = structuredClone(ctx.body);
  body['operation_id'] = otherUuid(String(body['operation_id'] ?? ''), 'replay/operation');
  const ops: unknown[] = Array.isArray(body['ops']) ? body['ops'] : [];
  const first = ops[0];
  if (isRecord(first)) ops[0] = { ...first, artifact_id: otherUuid(String(first['artifact_id'] ?? ''), 'replay/artifact'), revision_id: otherUuid(String(first['revision_id'] ?? ''), 'replay/revision') };
  return body;
}

function hs256(ctx: AttackContext, secret: Uint8Array | string): string {
  const seg = b64u(`{"alg":"HS256","kid":${JSON.stringify(ctx.kid)}}`);
  return `${seg}..${b64u(createHmac('sha256', secret).update(signingInput(seg, payloadFor(ctx))).digest())}`;
}

function sec1Of(jwk: JsonWebKey): Uint8Array {
  return new Uint8Array(Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x ?? '', 'base64url'), Buffer.from(jwk.y ?? '', 'base64url')]));
}

function reversedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversedKeys);
  if (!isRecord(v)) return v;
  const rec = v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(rec).sort().reverse()) out[k] = reversedKeys(rec[k]);
  return out;
}

/** Canonical text with every character of the first member name written as a \u escape. */
function unicodeEscapedWire(body: unknown): Uint8Array {
  const text = canonicalize(body);
  const m = /^\{"([^"\\]*)"/.exec(text);
  if (!m) return enc(text);
  const escaped = [...m[1]].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
  return enc(`{"${escaped}"${text.slice(m[0].length)}`);
}

/** Canonical text with its first integer member value spelled with a fraction (1 → 1.0). */
function numberSpelledWire(body: unknown): Uint8Array {
  return enc(canonicalize(body).replace(/:(-?\d+)([,}\]])/, ':$1.0$2'));
}

type Ungrounded = Omit<SignatureAttack, 'rests'>;
const reject = (id: string, title: string, apply: SignatureAttack['apply'], extra: Partial<Ungrounded> = {}): Ungrounded => ({ id, title, expect: 'reject', apply, ...extra });
const accept = (id: string, title: string, apply: SignatureAttack['apply']): Ungrounded => ({ id, title, expect: 'accept', apply });
/** Attacks that rest on the same words. */
const on = (rests: SignatureAttack['rests'], ...attacks: Ungrounded[]): SignatureAttack[] => attacks.map((a) => Object.freeze({ ...a, rests }));
/**
 * An attack whose verdict depends on `assumption`, resting on its readings (and on `also`, the words
 * that leave the question open); each `verdictsUnder` names one of that assumption's own readings.
 */
const depends = <N extends AssumptionName>(
  id: string, title: string, assumption: N, defaultVerdict: 'reject' | 'accept', apply: SignatureAttack['apply'],
  extra: Partial<Omit<SignatureAttack, 'verdictsUnder' | 'rests'>> & { verdictsUnder?: readonly VerdictUnder<N>[]; also?: readonly AttackGround[] } = {},
): SignatureAttack => {
  const { also = [], ...rest } = extra;
  return Object.freeze({ id, title, expect: 'assumption', assumption, defaultVerdict, apply, ...rest, rests: [reading(assumption), ...also] as const });
};

// ---------------------------------------------------------------------------------------------
// The catalogue

const MUST_REJECT: SignatureAttack[] = [
  // Header presence and shape
  ...on([G.required], reject('header.missing', 'no Service-Signature header', (c) => plain(c, undefined))),
  ...on([G.form],
    reject('header.empty', 'empty Service-Signature header', (c) => plain(c, '')),
    reject('header.garbage', 'a header value that is not a JWS', (c) => plain(c, 'not-a-signature'))),
  ...on([G.headerJson],
    reject('header.two-dots', 'only the two dots ("..")', (c) => plain(c, '..')),
    reject('header.not-json', 'protected header that is not JSON, validly signed', (c) => plain(c, signedBy(c, `{alg:ES256,kid:${c.kid}}`))),
    reject('header.array', 'protected header that is a JSON array, validly signed', (c) => plain(c, signedBy(c, `["ES256",${JSON.stringify(c.kid)}]`)))),
  // Algorithm confusion: section 5 names ES256, and the signing input is verified as alg says.
  ...on([G.form, G.signingInput],
    reject('alg.none-unsigned', 'alg "none" and an empty signature', (c) => plain(c, `${b64u(`{"alg":"none","kid":${JSON.stringify(c.kid)}}`)}..`)),
    reject('alg.none-with-signature', 'alg "none" with the signature of the valid header', (c) =>
      plain(c, `${b64u(`{"alg":"none","kid":${JSON.stringify(c.kid)}}`)}..${signedBy(c).split('.')[2]}`)),
    reject('alg.none-signed', 'alg "none", signed by the device key over that header (a verifier that ignores alg accepts it)', (c) =>
      plain(c, signedBy(c, `{"alg":"none","kid":${JSON.stringify(c.kid)}}`))),
    reject('alg.hs256-pem', 'HS256 keyed with the public key as SPKI PEM text', (c) =>
      plain(c, hs256(c, String(createPublicKey(c.privateKey).export({ type: 'spki', format: 'pem' }))))),
    reject('alg.hs256-jwk', 'HS256 keyed with the public JWK as JSON text', (c) => plain(c, hs256(c, canonicalize(c.publicJwk)))),
    reject('alg.hs256-sec1', 'HS256 keyed with the 65-byte SEC1 public point', (c) => plain(c, hs256(c, sec1Of(c.publicJwk)))),
    reject('alg.es384', 'alg ES384: P-256 key over SHA-384 of the signing input', (c) => {
      const seg = b64u(`{"alg":"ES384","kid":${JSON.stringify(c.kid)}}`);
      return plain(c, `${seg}..${b64u(ecdsaSign(sha384(signingInput(seg, payloadFor(c))), scalarOf(c.privateKey), { prehash: false }))}`);
    }),
    reject('alg.es512', 'alg ES512: P-256 key over SHA-512 of the signing input', (c) => {
      const seg = b64u(`{"alg":"ES512","kid":${JSON.stringify(c.kid)}}`);
      return plain(c, `${seg}..${b64u(ecdsaSign(sha512(signingInput(seg, payloadFor(c))), scalarOf(c.privateKey), { prehash: false }))}`);
    }),
    // The kid is irrelevant here: alg HS256 is not ES256, whatever key a kid-reading verifier would find.
    reject('kid.path-traversal', 'kid naming a file by path traversal (../../dev/null, an empty file) and HS256 keyed with the empty secret', (c) => {
      const seg = b64u(`{"alg":"HS256","kid":"../../../../../../../dev/null"}`);
      return plain(c, `${seg}..${b64u(createHmac('sha256', '').update(signingInput(seg, payloadFor(c))).digest())}`);
    })),
  ...on([G.algCase], reject('alg.lowercase', 'alg "es256" (alg is case-sensitive), signed by the device key', (c) => plain(c, signedBy(c, `{"alg":"es256","kid":${JSON.stringify(c.kid)}}`)))),
  // Rejected, or read last-wins (none): either way not an ES256 JWS.
  ...on([G.uniqueNames, G.form], reject('alg.duplicate-es256-none', 'duplicate alg (ES256 then none): last-wins reads none, first-wins reads ES256', (c) =>
    plain(c, signedBy(c, `{"alg":"ES256","kid":${JSON.stringify(c.kid)},"alg":"none"}`)))),
  // Extensions and embedded keys
  ...on([G.crit], reject('crit.unknown', 'unknown critical extension (RFC 7515 4.1.11)', (c) =>
    plain(c, signedBy(c, `{"alg":"ES256","kid":${JSON.stringify(c.kid)},"crit":["x-pouchproof"],"x-pouchproof":1}`)))),
  // b64 unlisted in crit is ignored (RFC 7515 names no b64), so the signing input keeps the encoded payload.
  ...on([G.unknownIgnored, G.signingInput], reject('b64.false-without-crit', 'b64:false without crit (RFC 7797 section 6), signed over the unencoded digest', (c) => {
    const seg = b64u(`{"alg":"ES256","kid":${JSON.stringify(c.kid)},"b64":false}`);
    const input = Buffer.concat([Buffer.from(`${seg}.`, 'latin1'), payloadFor(c)]);
    return plain(c, `${seg}..${b64u(ecdsaSign(input, scalarOf(c.privateKey)))}`);
  })),
  // A key no device of the service holds: the party that must sign is the command-line device.
  ...on([G.required, G.partyKey],
    reject('key.embedded-jwk', 'attacker key embedded as jwk, right kid, signed by the attacker', (c) =>
      plain(c, detached(c, `{"alg":"ES256","kid":${JSON.stringify(c.kid)},"jwk":${canonicalize(publicJwkOfScalar(ATTACKER))}}`, ATTACKER, c.body))),
    reject('key.jku', 'jku pointing at an attacker JWK Set, signed by the attacker', (c) =>
      plain(c, detached(c, `{"alg":"ES256","kid":${JSON.stringify(c.kid)},"jku":"https://attacker.invalid/jwks.json"}`, ATTACKER, c.body))),
    reject('key.unenrolled', 'a valid signature by a key that is not enrolled, with the right kid', (c) => plain(c, detached(c, headerJson(c.kid), ATTACKER, c.body)))),
  ...on([G.required, G.partyKey, G.x5cValidated], reject('key.x5c', 'attacker certificate (self-signed) embedded as x5c, right kid, signed by the attacker', (c) =>
    plain(c, detached(c, `{"alg":"ES256","kid":${JSON.stringify(c.kid)},"x5c":[${JSON.stringify(Buffer.from(ATTACKER_CERTIFICATE).toString('base64'))}]}`, ATTACKER, c.body)))),
  // Signature encoding and range
  ...on([G.sixtyFour],
    reject('sig.empty', 'empty signature segment', (c) => plain(c, `${b64u(headerJson(c.kid))}..`)),
    reject('sig.s-plus-n', 's replaced by s + n, which needs 33 bytes for almost every s (n > 2^256 - 2^224), giving a 65-byte signature that a verifier reducing s mod n would accept', (c) =>
      withSignature(c, (sig) => {
        const s = rsOf(sig).s + P256_N;
        return joinRs(sig.subarray(0, 32), bytesOf(s, s < 1n << 256n ? 32 : 33));
      })),
    reject('sig.truncated-63', '63-byte signature (last byte dropped)', (c) => withSignature(c, (sig) => sig.subarray(0, 63))),
    reject('sig.trailing-zero-65', '65-byte signature (a zero byte appended)', (c) => withSignature(c, (sig) => joinRs(sig, new Uint8Array(1)))),
    reject('sig.der', 'ASN.1 DER signature instead of 64-byte r||s', (c) => withSignature(c, derOf))),
  // The ECDSA validator takes r and s in [1, n - 1] only (FIPS 186-4 section 6.4.2, RFC 7518's [DSS]).
  ...on([G.validator],
    reject('sig.r0-s0', 'r = s = 0 (CVE-2022-21449 "psychic signature")', (c) => withSignature(c, () => new Uint8Array(64))),
    reject('sig.r-equals-n', 'r replaced by n', (c) => withSignature(c, (sig) => joinRs(bytesOf(P256_N, 32), sig.subarray(32)))),
    reject('sig.s-equals-n', 's replaced by n', (c) => withSignature(c, (sig) => joinRs(sig.subarray(0, 32), bytesOf(P256_N, 32)))),
    reject('sig.r-s-swapped', 'r and s swapped', (c) => withSignature(c, (sig) => joinRs(sig.subarray(32), sig.subarray(0, 32))))),
  ...on([G.base64url],
    reject('sig.padded', 'base64url signature with "=" padding', (c) => withSignature(c, (sig) => `${b64u(sig)}==`)),
    reject('sig.standard-alphabet', 'signature in the standard base64 alphabet ("+" and "/")', (c) => {
      // Hedge the nonce until the encoding has a "-" or "_" to change (deterministic, almost always the first try).
      const seg = b64u(headerJson(c.kid));
      const input = signingInput(seg, payloadFor(c));
      let text = '';
      for (let i = 0; i < 64 && !/[-_]/.test(text); i++) text = b64u(ecdsaSign(input, scalarOf(c.privateKey), { entropy: new Uint8Array(32).fill(i) }));
      return plain(c, `${seg}..${text.replaceAll('-', '+').replaceAll('_', '/')}`);
    })),
  // What is signed
  ...on([G.form],
    reject('digest.sha256', 'payload = SHA-256 of the canonical body instead of BLAKE3', (c) =>
      plain(c, detached(c, headerJson(c.kid), scalarOf(c.privateKey), c.body, { payload: createHash('sha256').update(canonicalize(c.body)).digest() }))),
    reject('digest.hex', 'payload = the BLAKE3 digest as ASCII hex', (c) =>
      plain(c, detached(c, headerJson(c.kid), scalarOf(c.privateKey), c.body, { payload: enc(Buffer.from(digestOf(c.body)).toString('hex')) }))),
    reject('digest.header-only', 'signature over the protected header with an empty payload', (c) =>
      plain(c, detached(c, headerJson(c.kid), scalarOf(c.privateKey), c.body, { payload: new Uint8Array(0) }))),
    reject('jws.attached-other-body', 'attached JWS whose payload is the digest of another body ({}), validly signed', (c) => {
      const seg = b64u(headerJson(c.kid));
      const payload = payloadFor(c, {});
      return plain(c, `${seg}.${b64u(payload)}.${b64u(ecdsaSign(signingInput(seg, payload), scalarOf(c.privateKey)))}`);
    })),
  ...on([G.signingInput, G.validator], reject('digest.signed-raw', 'ECDSA over the BLAKE3 digest as the message hash (no JWS signing input, no SHA-256)', (c) =>
    plain(c, `${b64u(headerJson(c.kid))}..${b64u(ecdsaSign(digestOf(c.body), scalarOf(c.privateKey), { prehash: false }))}`))),
  // The body changed after signing: the JWS is over another body's hash.
  ...on([G.form],
    ...Object.keys(commitOperations.body.fields).map((field) =>
      reject(`body.${field}-changed`, `${field} changed after signing`, (c) => {
        const body = structuredClone(c.body);
        body[field] = changed(commitOperations.body.fields[field].node, body[field], field);
        return plain(c, signedBy(c), body);
      }),
    ),
    ...Object.keys(PouchOperation.fields).map((field) =>
      reject(`body.op.${field}-changed`, `ops[0].${field} changed (or added) after signing`, (c) => plain(c, signedBy(c), opFieldChanged(c, field))),
    ),
    reject(
      'body.changed-after-acceptance',
      'the header of a commit just accepted, sent again with another body (another operation_id, a new artifact): a verifier caching results by header value takes it',
      (c) => plain(c, signedBy(c), otherCommit(c)),
      { first: 'original' },
    ),
    reject('replay.other-body', 'a valid header for another body (other operation_id and epoch) replayed', (c) => {
      const other = { ...structuredClone(c.body), operation_id: derivedUuid('replay/operation'), epoch: derivedUuid('replay/epoch') };
      return plain(c, signedBy(c, headerJson(c.kid), other));
    })),
];

const MUST_ACCEPT: SignatureAttack[] = [
  ...on([G.form], accept('ok.original', 'the signed body sent in its canonical form (valid under every canonical-json reading)', (c) => plain(c, signedBy(c)))),
  // The protected header is a JSON object: its layout is JSON's, not the client's.
  ...on([G.headerJson],
    accept('ok.header-whitespace', 'protected header JSON with whitespace inside', (c) =>
      plain(c, signedBy(c, `{ "alg" : "ES256" ,\n "kid" : ${JSON.stringify(c.kid)} }`))),
    accept('ok.header-order', 'protected header members in the other order', (c) => plain(c, signedBy(c, `{"kid":${JSON.stringify(c.kid)},"alg":"ES256"}`))),
    accept('ok.header-kid-escaped', 'kid written with a \\u escape in the header JSON (same string)', (c) => {
      const first = c.kid.length > 0 ? `\\u${c.kid.charCodeAt(0).toString(16).padStart(4, '0')}` : '';
      return plain(c, signedBy(c, `{"alg":"ES256","kid":"${first}${JSON.stringify(c.kid.slice(1)).slice(1)}}`));
    })),
  ...on([G.typIgnored], accept('ok.header-typ', 'protected header with the registered, non-critical typ member', (c) =>
    plain(c, signedBy(c, `{"alg":"ES256","kid":${JSON.stringify(c.kid)},"typ":"JOSE"}`)))),
  ...on([G.validator], accept('ok.hedged-nonce', 'another valid signature of the same body (RFC 6979 nonce hedged with fixed extra entropy)', (c) =>
    plain(c, detached(c, headerJson(c.kid), scalarOf(c.privateKey), c.body, { entropy: new Uint8Array(32).fill(7) })))),
];

/** A kid of no enrolled device: another valid UUID. */
const kidOfNobody = (c: AttackContext): string => otherUuid(c.kid, 'kid');

const READING_DEPENDENT: SignatureAttack[] = [
  depends('ok.high-s', 'the high-S twin (s replaced by n - s)', 'high-s-accepted', 'accept', (c) =>
    withSignature(c, (sig) => joinRs(sig.subarray(0, 32), bytesOf(P256_N - bigintOf(sig.subarray(32)), 32))), { verdictsUnder: [{ value: 'rejected', verdict: 'reject' }], also: [G.validator] }),
  depends('ok.reordered-keys', 'the same body with members in reverse order at every level', 'canonical-json', 'accept', (c) =>
    plain(c, signedBy(c), c.body, enc(JSON.stringify(reversedKeys(c.body))))),
  depends('ok.pretty-printed', 'the same body pretty-printed with whitespace', 'canonical-json', 'accept', (c) =>
    plain(c, signedBy(c), c.body, enc(JSON.stringify(c.body, null, 2)))),
  depends('ok.unicode-escaped', 'the same body with the first member name written as \\u escapes', 'canonical-json', 'accept', (c) =>
    plain(c, signedBy(c), c.body, unicodeEscapedWire(c.body))),
  depends('ok.number-spelling', 'the same body with an integer written with a fraction (1 as 1.0)', 'canonical-json', 'accept', (c) =>
    plain(c, signedBy(c), c.body, numberSpelledWire(c.body))),
  depends('alg.duplicate-none-es256', 'duplicate alg (none then ES256), signed by the device key: RFC 7515 allows last-wins, which reads ES256', 'duplicate-keys', 'reject', (c) =>
    plain(c, signedBy(c, `{"alg":"none","kid":${JSON.stringify(c.kid)},"alg":"ES256"}`)), { also: [G.uniqueNames] }),
  depends('kid.duplicate', 'duplicate kid (another id, then this device), signed by the device key', 'duplicate-keys', 'reject', (c) =>
    plain(c, signedBy(c, `{"alg":"ES256","kid":${JSON.stringify(kidOfNobody(c))},"kid":${JSON.stringify(c.kid)}}`)), { also: [G.uniqueNames] }),
  depends('b64.false-with-crit', 'RFC 7797 unencoded payload (the ASCII base64url digest) with crit ["b64"]', 'jws-form', 'reject', (c) => {
    const seg = b64u(`{"alg":"ES256","kid":${JSON.stringify(c.kid)},"b64":false,"crit":["b64"]}`);
    const input = Buffer.from(`${seg}.${b64u(digestOf(c.body))}`, 'latin1');
    return plain(c, `${seg}..${b64u(ecdsaSign(input, scalarOf(c.privateKey)))}`);
  }),
  depends('jws.b64-text-payload', 'payload = the ASCII base64url text of the digest (encoded again in the signing input)', 'jws-form', 'reject', (c) =>
    plain(c, detached(c, headerJson(c.kid), scalarOf(c.privateKey), c.body, { payload: enc(b64u(digestOf(c.body))) }))),
  depends('jws.attached-payload', 'attached JWS: the payload segment holds the right digest', 'jws-form', 'reject', (c) => {
    const h = signedBy(c);
    const [seg, , sig] = h.split('.');
    return plain(c, `${seg}.${b64u(payloadFor(c))}.${sig}`);
  }),
  // Every jws-form reading signs the 32-byte digest ("the raw 32-byte BLAKE3 digest", "the ASCII base64url text of the digest").
  depends('digest.blake3-xof64', 'payload = 64 bytes of BLAKE3 output', 'jws-form', 'reject', (c) =>
    plain(c, detached(c, headerJson(c.kid), scalarOf(c.privateKey), c.body, { payload: blake3Xof(enc(canonicalize(c.body)), { dkLen: 64 }) })), { verdictsUnder: [{ value: 'b64-text-payload', verdict: 'reject' }] }),
  depends('replay.other-pouch', 'a valid header and body replayed on another pouch id: the signature covers the body only, so the path is not bound', 'jws-form', 'accept', (c) =>
    ({ ...plain(c, signedBy(c)), pouchId: otherUuid(c.pouchId, 'pouch') }), { also: [G.form] }),
  // Whose key verifies and what the kid must name: section 5 does not say, and RFC 7515 makes kid a hint.
  depends('kid.wrong', 'kid of no enrolled device, signed by the device key', 'kid-binding', 'reject', (c) => plain(c, signedBy(c, headerJson(kidOfNobody(c)))), {
    verdictsUnder: [{ value: 'unbound', verdict: 'reject' }, { value: 'caller-key', verdict: 'accept' }],
    also: [G.kidHint],
  }),
  depends('kid.number', 'kid that is not a string, signed by the device key', 'kid-binding', 'reject', (c) => plain(c, signedBy(c, '{"alg":"ES256","kid":1}')), {
    verdictsUnder: [{ value: 'unbound', verdict: 'reject' }, { value: 'caller-key', verdict: 'accept' }],
    also: [G.kidHint],
  }),
  // No kid names no device (bound, unbound); under caller-key the kid is a hint a server may still ask
  // for, or not read at all: not judged there.
  depends('kid.missing', 'protected header without kid, signed by the device key (the KAT reading)', 'kid-binding', 'reject', (c) => plain(c, signedBy(c, '{"alg":"ES256"}')), {
    verdictsUnder: [{ value: 'unbound', verdict: 'reject' }],
    also: [G.kidHint],
  }),
  depends('device.other', 'a valid signature by another enrolled device, with its own kid', 'kid-binding', 'reject', (c) =>
    plain(c, detached(c, headerJson(otherDevice(c).kid), scalarOf(otherDevice(c).privateKey), c.body)), {
    needs: 'otherDevice',
    verdictsUnder: [{ value: 'unbound', verdict: 'accept' }, { value: 'caller-key', verdict: 'reject' }],
    also: [G.kidHint],
  }),
  depends('device.other-key-own-kid', "another device's key with this device's kid", 'kid-binding', 'reject', (c) =>
    plain(c, detached(c, headerJson(c.kid), scalarOf(otherDevice(c).privateKey), c.body)), {
    needs: 'otherDevice',
    verdictsUnder: [{ value: 'unbound', verdict: 'reject' }, { value: 'caller-key', verdict: 'reject' }],
    also: [G.kidHint],
  }),
];

export const SIGNATURE_ATTACKS: readonly SignatureAttack[] = Object.freeze([...MUST_REJECT, ...MUST_ACCEPT, ...READING_DEPENDENT]);

export const SIGNATURE_ATTACK_BY_ID: ReadonlyMap<string, SignatureAttack> = new Map(SIGNATURE_ATTACKS.map((a) => [a.id, a]));
