/**
 * Crypto throughput on one core: signed commit requests built per second (canonicalise + BLAKE3 +
 * ES256 sign + JSON.stringify of the body), verifications per second, and BLAKE3 MiB/s, for the
 * implementation pouchproof uses (node:crypto + hash-wasm) and for @noble, with the ratio.
 */
import { createHash, sign, type KeyObject } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { blake3 as nobleBlake3 } from '@noble/hashes/blake3.js';
import { b64u } from '../src/crypto/base64url.ts';
import { blake3 } from '../src/crypto/blake3.ts';
import { canonicalize } from '../src/crypto/canonical.ts';
import { generateDeviceKey, privateKeyFromJwk, publicKeyFromJwk } from '../src/crypto/keys.ts';
import { payloadOf, protectedHeaderSegment, signServiceSignature, signingInput, verifyServiceSignature } from '../src/crypto/service-signature.ts';

const SECONDS = Number(process.env['POUCHPROOF_BENCH_SECONDS'] ?? 1.5);

function uuid(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
function text(seed: string, n: number): string {
  let out = '';
  for (let i = 0; out.length < n; i++) out += createHash('sha256').update(`${seed}/${i}`).digest('base64url');
  return out.slice(0, n);
}

/** A commit body with realistic op fields and 1 KiB envelopes. */
function commitBody(ops: number, seed: string): Record<string, unknown> {
  return {
    operation_id: uuid(`${seed}/op`),
    epoch: uuid(`${seed}/epoch`),
    ops: Array.from({ length: ops }, (_, i) => ({
      type: 'update', artifact_id: uuid(`${seed}/a/${i}`), revision_id: uuid(`${seed}/r/${i}`), base_revision_id: uuid(`${seed}/b/${i}`),
      merge_parent_id: null, name_index: text(`${seed}/n/${i}`, 43), conflict_id: null, key_gen: 3, envelope: text(`${seed}/e/${i}`, 1024),
      signature: text(`${seed}/s/${i}`, 86), signer_member_id: uuid(`${seed}/m`), blob_ids: [uuid(`${seed}/blob/${i}`), uuid(`${seed}/blob2/${i}`)],
    })),
  };
}

/** Calls `f` repeatedly for about SECONDS and returns calls per second. */
function rate(f: (i: number) => unknown): number {
  for (let i = 0; i < 50; i++) f(i); // warm-up
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < SECONDS * 1000) {
    for (let k = 0; k < 20; k++) f(n++);
    now = performance.now();
  }
  return (n * 1000) / (now - start);
}

const fmt = (x: number, unit: string) => `${x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(1)} ${unit}`;
const row = (label: string, ours: number, noble: number, unit: string) =>
  console.log(`${label.padEnd(34)} ${fmt(ours, unit).padStart(16)}   noble ${fmt(noble, unit).padStart(14)}   ratio ${(ours / noble).toFixed(1)}x`);

export async function run(): Promise<void> {
  const pair = generateDeviceKey();
  const privateKey = privateKeyFromJwk(pair.privateJwk);
  const publicKey = publicKeyFromJwk(pair.publicJwk);
  const d = Buffer.from(pair.privateJwk.d!, 'base64url');
  const pub = p256.getPublicKey(d, false);
  const kid = uuid('device');
  console.log(`one core, ~${SECONDS}s per figure; node:crypto ES256 + hash-wasm BLAKE3 vs @noble/curves + @noble/hashes`);

  for (const ops of [1, 50]) {
    // Distinct bodies so nothing is cached between iterations except what the code caches itself.
    const bodies = Array.from({ length: 16 }, (_, i) => commitBody(ops, `bench/${ops}/${i}`));
    const wireBytes = JSON.stringify(bodies[0]).length;
    const build = rate((i) => {
      const body = bodies[i & 15]!;
      return [signServiceSignature({ body, kid, privateKey }), JSON.stringify(body)];
    });
    const buildNoble = rate((i) => {
      const body = bodies[i & 15]!;
      const seg = protectedHeaderSegment(kid);
      const digest = nobleBlake3(new TextEncoder().encode(canonicalize(body)));
      return [`${seg}..${b64u(p256.sign(signingInput(seg, payloadOf(digest)), d, { lowS: false }))}`, JSON.stringify(body)];
    });
    row(`signed ${ops}-op commits built (${(wireBytes / 1024).toFixed(1)} KiB)`, build, buildNoble, '/s');

    const signed = bodies.map((body) => {
      const raw = Buffer.from(JSON.stringify(body));
      return { raw, header: signServiceSignature({ body, kid, privateKey }), parsed: JSON.parse(raw.toString()) as unknown };
    });
    const verifyRate = rate((i) => {
      const s = signed[i & 15]!;
      const v = verifyServiceSignature({ header: s.header, rawBody: s.raw, parsedBody: s.parsed, keyFor: () => publicKey, expectedKid: kid });
      if (!v.ok) throw new Error(`bench: verification failed (${v.reason})`);
    });
    const verifyNoble = rate((i) => {
      const s = signed[i & 15]!;
      const [seg, , sig] = s.header.split('.') as [string, string, string];
      const digest = nobleBlake3(new TextEncoder().encode(canonicalize(s.parsed)));
      if (!p256.verify(Buffer.from(sig, 'base64url'), signingInput(seg, payloadOf(digest)), pub, { lowS: false })) throw new Error('bench: noble verify failed');
    });
    row(`${ops}-op verifications (from parsed body)`, verifyRate, verifyNoble, '/s');
  }

  const msg = new Uint8Array(Buffer.from('x'.repeat(200)));
  const es256 = rate(() => signingInputSign(msg, privateKey));
  const es256Noble = rate(() => p256.sign(msg, d, { lowS: false }));
  row('raw ES256 sign (200 B input)', es256, es256Noble, '/s');

  const canon50 = commitBody(50, 'bench/canon');
  row('canonicalize 50-op body', rate(() => canonicalize(canon50)), rate(() => JSON.stringify(canon50)), '/s');
  console.log('  (the "noble" column of this row is plain JSON.stringify, for scale)');

  const big = new Uint8Array(16 * 1024 * 1024);
  for (let i = 0; i < big.length; i++) big[i] = (i * 2654435761) >>> 24;
  const mib = big.length / (1024 * 1024);
  row('BLAKE3 over 16 MiB', rate(() => blake3(big)) * mib, rate(() => nobleBlake3(big)) * mib, 'MiB/s');
}

function signingInputSign(msg: Uint8Array, key: KeyObject): Buffer {
  return sign('sha256', msg, { key, dsaEncoding: 'ieee-p1363' });
}
