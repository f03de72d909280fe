/**
 * Probes of what section 5 leaves open about `Service-Signature`: which canonical form is hashed,
 * whether a high-S twin verifies, whose key verifies and what the kid names, and whether browsers
 * must sign too. Each sends creates of fresh artifacts in the JWS form already found.
 */
import { canonicalize, sortedCompact, b64u, fromB64u, P256_N } from '../crypto/index.ts';
import { DEFAULT_ASSUMPTIONS, type ReadingOf } from '../spec/index.ts';
import { commitOutcome, type BatchFate } from '../check/judge/commit-outcome.ts';
import { commit, commitBody, op, signatureOf, signerId, type CommitOptions, type Op } from './build.ts';
import type { CommitBase } from './commit-base.ts';
import type { Scope } from './env.ts';
import { choicesOf, decide, notObservable, unknown, type ProbeResult } from './result.ts';

async function createWith(scope: Scope, what: string, base: CommitBase, pouch: string, o: CommitOptions): Promise<{ fate: BatchFate; status?: number }> {
  const env = scope.env;
  const ops: Op[] = [op('create', env.uuid(), env.uuid(), null, signerId(env))];
  const ex = await commit(scope, what, pouch, ops, base, o);
  return { fate: commitOutcome(ex, ops, DEFAULT_ASSUMPTIONS).batch, ...(ex.response ? { status: ex.response.status } : {}) };
}

/** JSON with every object's members in reverse order and indented: parses the same, hashes differently raw. */
function scrambled(v: unknown): string {
  const reorder = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(reorder);
    if (typeof x === 'object' && x !== null) return Object.fromEntries(Object.entries(x).reverse().map(([k, y]) => [k, reorder(y)]));
    return x;
  };
  return JSON.stringify(reorder(v), null, 1);
}

type Canonical = ReadingOf<'canonical-json'>;

/**
 * canonical-json: (1) scrambled bytes signed over JCS, (2) scrambled bytes signed over the bytes,
 * (3) a body with a lone surrogate (which JCS refuses), sent and signed sorted-compact. Each
 * reading accepts a different pattern of the three. 3 requests.
 */
export async function probeCanonical(scope: Scope, base: CommitBase): Promise<ProbeResult[]> {
  const env = scope.env;
  const pouch = base.pouch();
  const body = (extra: Record<string, unknown> = {}): { ops: Op[]; operationId: string; epoch: string; body: Record<string, unknown> } => {
    const ops = [op('create', env.uuid(), env.uuid(), null, signerId(env), extra)];
    const operationId = env.uuid();
    const epoch = env.uuid();
    return { ops, operationId, epoch, body: commitBody(ops, operationId, epoch) };
  };
  const send = async (what: string, b: ReturnType<typeof body>, bytes: string, canonical: Canonical): Promise<BatchFate> => {
    const header = signatureOf(env, b.body, bytes, base, { canonical });
    const ex = await commit(scope, what, pouch, b.ops, base, { operationId: b.operationId, epoch: b.epoch, rawBody: bytes, header: { value: header } });
    return commitOutcome(ex, b.ops, DEFAULT_ASSUMPTIONS).batch;
  };
  const b1 = body();
  const b2 = body();
  const b3 = body({ blob_ids: ['\ud800'] });
  const seen = await Promise.all([
    send('reordered, indented bytes, signed over their JCS form', b1, scrambled(b1.body), 'rfc8785'),
    send('reordered, indented bytes, signed over the bytes as sent', b2, scrambled(b2.body), 'raw-bytes'),
    send('a body with a lone surrogate in blob_ids (JCS refuses it), sent and signed sorted-compact', b3, sortedCompact(b3.body), 'sorted-compact'),
  ]);
  if (seen.some((f) => f !== 'applied' && f !== 'refused')) return [unknown('canonical-json', 'a signed create was answered with a 5xx, no answer or an unreadable result', scope.evidence)];
  const accepts: { readonly [R in Canonical]: readonly boolean[] } = {
    rfc8785: [true, false, false],
    'raw-bytes': [false, true, true],
    'sorted-compact': [true, false, true],
  };
  const ok = seen.map((f) => f === 'applied');
  const consistent = choicesOf('canonical-json').filter((r) => accepts[r].every((a, i) => a === ok[i]));
  return [decide('canonical-json', consistent, scope.evidence)];
}

/** The same signature with s replaced by n - s: the high-S twin. */
function highSTwin(header: string): string {
  const [h, p, sig] = header.split('.');
  const bytes = Buffer.from(fromB64u(sig));
  const s = BigInt(`0x${bytes.subarray(32).toString('hex')}`);
  Buffer.from((P256_N - s).toString(16).padStart(64, '0'), 'hex').copy(bytes, 32);
  return `${h}.${p}.${b64u(bytes)}`;
}

/** high-s-accepted: a create signed with the high-S twin of a valid signature. 1 request. */
export async function probeHighS(scope: Scope, base: CommitBase): Promise<ProbeResult[]> {
  const env = scope.env;
  const ops = [op('create', env.uuid(), env.uuid(), null, signerId(env))];
  const operationId = env.uuid();
  const epoch = env.uuid();
  const b = commitBody(ops, operationId, epoch);
  const bytes = canonicalize(b);
  const low = signatureOf(env, b, bytes, base);
  if (!low) return [notObservable('high-s-accepted', 'no device key to sign with')];
  const ex = await commit(scope, 'a create signed with the high-S twin (s → n - s) of a valid signature', base.pouch(), ops, base, { operationId, epoch, rawBody: bytes, header: { value: highSTwin(low) } });
  const f = commitOutcome(ex, ops, DEFAULT_ASSUMPTIONS).batch;
  if (f === 'applied') return [decide('high-s-accepted', ['accepted'], scope.evidence)];
  if (f === 'refused') return [decide('high-s-accepted', ['rejected'], scope.evidence)];
  return [unknown('high-s-accepted', 'the high-S commit was answered with a 5xx, no answer or an unreadable result', scope.evidence)];
}

type KidBinding = ReadingOf<'kid-binding'>;

/**
 * What each kid-binding reading does with the two probes: another enrolled device's key under its
 * own kid, and the caller's own key under a kid of no enrolled device (true: applied).
 */
const KID_PROBES: { readonly [R in KidBinding]: readonly [otherDevice: boolean, kidOfNobody: boolean] } = {
  bound: [false, false],
  unbound: [true, false],
  'caller-key': [false, true],
};

/**
 * kid-binding: the first device commits twice, signed with the second account's device (its kid
 * and key), then with its own key under a fresh kid that names no enrolled device. Each reading
 * answers the pair differently; a pair no reading gives (both applied: any enrolled key, whatever
 * the kid) stays unknown with its evidence. 2 requests.
 */
export async function probeKidBinding(scope: Scope, base: CommitBase): Promise<ProbeResult[]> {
  if (!scope.env.signer('secondary')) return [notObservable('kid-binding', 'needs a second enrolled device (accounts.secondary.device with deviceId and privateJwk)')];
  const pouch = base.pouch();
  const seen = [
    (await createWith(scope, "a create by the first device, signed with another device's key and kid", base, pouch, { signAs: 'secondary' })).fate,
    (await createWith(scope, 'a create by the first device, signed with its own key under a kid of no enrolled device', base, pouch, { kid: scope.env.uuid() })).fate,
  ];
  if (seen.some((f) => f !== 'applied' && f !== 'refused')) return [unknown('kid-binding', 'a commit was answered with a 5xx, no answer or an unreadable result', scope.evidence)];
  const ok = seen.map((f) => f === 'applied');
  return [decide('kid-binding', choicesOf('kid-binding').filter((r) => KID_PROBES[r].every((a, i) => a === ok[i])), scope.evidence)];
}

/**
 * signature-required-callers: a browser commit without Service-Signature, then one signed with the
 * account's device key. An unsigned browser commit refused with 401 (unauthenticated, while the same
 * credentials sign in elsewhere) reads as "everyone must sign"; with 403, browsers may not commit
 * at all and the question cannot be asked. 1-2 requests.
 */
export async function probeSignatureCallers(scope: Scope, base: CommitBase): Promise<ProbeResult[]> {
  const name = 'signature-required-callers';
  if (!scope.env.identity('browser')) return [notObservable(name, 'the profile has no browser credentials (accounts.primary.browser)')];
  const pouch = base.pouch();
  const unsigned = await createWith(scope, 'a browser commit without Service-Signature', base, pouch, { browser: true, header: { value: undefined } });
  if (unsigned.fate === 'applied') return [decide(name, ['devices-only'], scope.evidence)];
  if (unsigned.fate !== 'refused') return [unknown(name, 'the browser commit was answered with a 5xx, no answer or an unreadable result', scope.evidence)];
  const signed = await createWith(scope, "a browser commit signed with the account's device key", base, pouch, { browser: true });
  if (signed.fate === 'applied') return [decide(name, ['everyone'], scope.evidence, 'a browser commit applies once signed')];
  if (unsigned.status === 401) return [decide(name, ['everyone'], scope.evidence, 'an unsigned browser commit is refused as unauthenticated (401)')];
  if (unsigned.status === 403) return [notObservable(name, 'browsers may not commit at all here (403), signed or not', scope.evidence)];
  return [unknown(name, 'browser commits are refused, signed or not, with neither 401 nor 403', scope.evidence)];
}
