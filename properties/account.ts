/**
 * The account operations' own promises: 4.1 creates a device and names it, 4.4 takes a free-form
 * `response` object and answers an object, 4.5 ends a revoked browser's sessions, 4.6 moves a head
 * forward.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { assumptionMismatch, dataOf, describeResponse, unexpected, violation } from '../src/check/judge/judge.ts';
import { READING_FREE, readingJudgement, specJudgement } from '../src/check/judge/judgements.ts';
import { PASS, defineProperty, notApplicable, unknownOutcome, type CaseContext, type Property } from '../src/check/property.ts';
import { isObject, validRequest, type JsonObject } from '../src/gen/index.ts';
import { PATTERNS, type EndpointId } from '../src/spec/index.ts';
import { withData, type Exchange } from '../src/target/client.ts';
import { envelopeOutcome, VALUE_READINGS } from './shapes.ts';

// Judged on an accepted answer's data alone (4.1's words): no reading changes what it must hold.
const DEVICE_ID = specJudgement('approve.device-id', 'An approval answers data.device_id, a uuid.', 'approveDeviceId', READING_FREE);
// Which ids name different pending requests is cli-request-exists's (two ids of the profile, or any two).
const CREATES_DEVICE = specJudgement('approve.creates-device', 'Approving two different cli-auth requests creates two devices.', 'approveCreatesDevice', { reads: ['cli-request-exists'] });
const HEAD_SEQ = specJudgement('unlock.head-seq-integer', 'A master-password change answers data.head_seq, an integer.', 'unlockHeadSeq', READING_FREE);
// A change with an empty statement list is one only where empty-lists lets it through.
const HEAD_MOVES = readingJudgement('unlock.head-moves', 'head_seq moves as the run reads: by one per change, or by the statements committed.', 'head-seq-semantics', { reads: ['empty-lists'] });
// Judged on a revoke answered revoked: true and what the revoked session is then served: no reading says a session outlives its revoke.
const ENDS_SESSIONS = specJudgement('revoke.ends-sessions', 'A browser revoked with revoked: true is served no more on its session.', 'revokeBrowser', READING_FREE);
import { mustAccept, plainRequest, prepare, type Sample } from './support/requests.ts';

// 4.1: approving a cli-auth request creates a device and answers its uuid.
const deviceCreated = defineProperty({
  id: 'approve.device-created',
  section: '4.1',
  invariant: 'Each approval answers data.device_id, a uuid (2.2), and two approvals create two different devices.',
  assumptions: ['cli-request-exists', 'opaque-crypto-fields', 'caller-kinds', ...VALUE_READINGS],
  judgements: [DEVICE_ID, CREATES_DEVICE],
  needs: ['browser'],
  arbitrary: () => fc.tuple(validRequest('approveDevice', { boundaries: false }), validRequest('approveDevice', { boundaries: false })),
  async check(ctx, pair) {
    const ids: string[] = [];
    const requests: string[] = [];
    for (const sample of pair) {
      const s = prepare(ctx, 'approveDevice', sample);
      const ex = await ctx.call({ endpoint: 'approveDevice', params: s.params, body: s.body });
      const acc = await mustAccept(ctx, 'approveDevice', ex, s, { what: 'approving a cli-auth request' });
      if (!acc.ok) return acc;
      // Refused as the run's readings expect (an empty list under empty-lists=rejected): no device to look at.
      if (ex.verdict !== 'accepted') return notApplicable('the approval was refused as the run\'s readings expect: no device to look at');
      const id = withData<'approveDevice'>(ex).data?.device_id;
      if (id === undefined || !PATTERNS.uuid.regex.test(id)) {
        return violation(DEVICE_ID, `an approval answered data ${JSON.stringify(dataOf(ex) ?? null).slice(0, 200)} without a uuid device_id (4.1)`, {
          mismatch: { subject: 'data.device_id', expected: 'a uuid', observed: id ?? null },
          exchangeIds: [ex.id],
        });
      }
      ids.push(id.toLowerCase());
      requests.push(String(s.params['id']).toLowerCase());
    }
    // Two approvals of the same listed request may well name one device.
    if (requests[0] === requests[1]) return PASS;
    return ids[0] === ids[1] ? violation(CREATES_DEVICE, `two approvals of different requests both answered device_id ${ids[0]}: one device for two`) : PASS;
  },
});

/** Free-form means free: keys a naive server might treat specially, nesting, every JSON type. */
const arbResponse: fc.Arbitrary<JsonObject> = fc.dictionary(
  fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'ok', 'data', 'clientDataJSON', '')),
  fc.jsonValue({ maxDepth: 3 }),
  { maxKeys: 6 },
) as fc.Arbitrary<JsonObject>;

// 4.4: `response` is a free-form object with arbitrary properties; `data` is an object.
const responseObject = defineProperty({
  id: 'passkeys.response-object',
  section: '4.4',
  invariant: 'A passkey registration with any free-form response object is accepted and answers the envelope with an object data.',
  assumptions: ['opaque-crypto-fields', 'caller-kinds', ...VALUE_READINGS],
  needs: ['browser'],
  arbitrary: () => fc.tuple(validRequest('registerPasskey', { boundaries: false }), arbResponse),
  async check(ctx, [sample, response]) {
    const s = prepare(ctx, 'registerPasskey', { params: sample.params, body: { ...sample.body, response } });
    const ex = await ctx.call({ endpoint: 'registerPasskey', params: s.params, body: s.body });
    const acc = await mustAccept(ctx, 'registerPasskey', ex, s, { what: 'registering a passkey with a free-form response' });
    if (!acc.ok) return acc;
    return envelopeOutcome('registerPasskey', ex);
  },
});

// 4.6: each accepted change of the master password moves the account's head forward.
const headSeq = defineProperty({
  id: 'unlock.head-seq',
  section: '4.6',
  invariant: 'Successive accepted master-password changes answer strictly increasing data.head_seq.',
  assumptions: ['head-seq-semantics', 'unlock-prepare', 'opaque-crypto-fields', 'caller-kinds', ...VALUE_READINGS],
  judgements: [HEAD_SEQ, HEAD_MOVES],
  needs: ['browser', 'account-changes'],
  runs: 10,
  // The account has one head_seq: cases run side by side would interleave their changes on it.
  concurrency: 1,
  arbitrary: () => fc.array(validRequest('changeUnlock', { boundaries: false }), { minLength: 2, maxLength: 3 }),
  async check(ctx, samples: Sample[]) {
    let last: number | undefined;
    for (const [i, sample] of samples.entries()) {
      const s = prepare(ctx, 'changeUnlock', sample);
      const ex = await ctx.call({ endpoint: 'changeUnlock', params: s.params, body: s.body });
      const acc = await mustAccept(ctx, 'changeUnlock', ex, s, { what: `master-password change ${i + 1}` });
      if (!acc.ok) return acc;
      if (ex.verdict !== 'accepted') continue;
      const seq = withData<'changeUnlock'>(ex).data?.head_seq;
      if (seq === undefined || !Number.isInteger(seq)) {
        const shape = envelopeOutcome('changeUnlock', ex);
        return shape.ok ? violation(HEAD_SEQ, `master-password change ${i + 1} answered head_seq ${JSON.stringify(seq)}`) : shape;
      }
      const statements = isObject(s.body) && Array.isArray(s.body.statements) ? s.body.statements.length : 0;
      if (last !== undefined) {
        const perChange = seq > last;
        const perStatement = statements > 0 ? seq > last : seq >= last;
        const reading = ctx.assumptions['head-seq-semantics'];
        if (!(reading === 'per-change' ? perChange : perStatement)) {
          return assumptionMismatch('head-seq-semantics', `master-password change ${i + 1} (${statements} statement(s)) answered head_seq ${seq} after ${last} (head-seq-semantics=${reading})`);
        }
      }
      last = seq;
    }
    return PASS;
  },
});

/** What a browser may be served on, tried in turn: the first one a revocable browser is served is sent again after its revoke. */
const BROWSER_REQUESTS: readonly EndpointId[] = ['revokeBrowser', 'registerPasskey', 'approveDevice'];

/** A plain request of `endpoint` (fresh ids) on the session of a revocable browser, or anonymously. */
function sendOn(ctx: CaseContext, endpoint: EndpointId, member: string | 'anonymous'): Promise<Exchange> {
  const s = prepare(ctx, endpoint, plainRequest(endpoint));
  return ctx.call({ endpoint, params: s.params, body: s.body, as: member === 'anonymous' ? member : { revocableBrowser: member } });
}

/** A revocable browser whose session is served, and on what; a profile's may have been revoked by an earlier run. */
async function servedSpare(ctx: CaseContext): Promise<{ readonly member: string; readonly endpoint: EndpointId } | { readonly outcome: ReturnType<typeof unexpected> }> {
  for (const b of ctx.profile.accounts.primary.revocableBrowsers ?? []) {
    if (b.memberId === undefined) continue;
    for (const endpoint of BROWSER_REQUESTS) {
      const ex = await sendOn(ctx, endpoint, b.memberId);
      const u = unexpected(ex, `a plain ${endpoint} on the session of revocable browser ${b.memberId}`);
      if (u) return { outcome: u };
      if (ex.verdict === 'accepted') return { member: b.memberId, endpoint };
    }
  }
  return { outcome: undefined };
}

// 4.5: "Revokes a browser member and ends its sessions."
const endsSessions = defineProperty({
  id: 'revoke.ends-sessions',
  section: '4.5',
  invariant: 'A browser the account revokes (revoked: true) is served no more on its session: a request it was served just before is refused after.',
  assumptions: ['browser-exists', 'caller-kinds', 'opaque-crypto-fields', ...VALUE_READINGS],
  judgements: [ENDS_SESSIONS],
  needs: ['browser', 'revocable-browser'],
  // Each case spends one of the profile's revocable browsers.
  runs: 1,
  concurrency: 1,
  arbitrary: () => fc.constant(null),
  async check(ctx) {
    const spare = await servedSpare(ctx);
    if ('outcome' in spare) {
      return spare.outcome ?? notApplicable('no revocable browser of the profile is served on its session (revoked by an earlier run, or its headers are no session of that member): list fresh ones in accounts.primary.revocableBrowsers');
    }
    const { member, endpoint } = spare;
    const s = prepare(ctx, 'revokeBrowser', plainRequest('revokeBrowser'));
    const revoke = { params: { ...s.params, id: member }, body: s.body };
    const ex = await ctx.call({ endpoint: 'revokeBrowser', ...revoke });
    const acc = await mustAccept(ctx, 'revokeBrowser', ex, revoke, { what: `revoking browser ${member} of the account` });
    if (!acc.ok) return acc;
    if (ex.verdict !== 'accepted') return notApplicable('the revoke was refused as the run\'s readings expect: no session was ended');
    const revoked = withData<'revokeBrowser'>(ex).data?.revoked;
    if (revoked !== true) return unknownOutcome(`revoking browser ${member}, served on its session just before, answered revoked ${JSON.stringify(revoked)}: what that means is not shown, so whether its sessions end is not judged`);
    const after = await sendOn(ctx, endpoint, member);
    const u = unexpected(after, `${endpoint} on the revoked browser's session`);
    if (u) return u;
    if (after.verdict !== 'accepted') return PASS;
    // Served without any credentials too (credentials-required=open): an ended session cannot be seen.
    if ((await sendOn(ctx, endpoint, 'anonymous')).verdict === 'accepted') return notApplicable(`${endpoint} is served without credentials too: an ended session cannot be told from a live one`);
    // A session cache may take a moment to forget: once more, a second later.
    await sleep(1_000, undefined, { signal: ctx.signal }).catch(() => undefined);
    const later = await sendOn(ctx, endpoint, member);
    if (later.verdict !== 'accepted') return unexpected(later) ?? PASS;
    return violation(ENDS_SESSIONS, `browser ${member} was revoked (answered revoked: true), yet ${endpoint} on its session was served right after and again a second later (${describeResponse(later)})`, {
      mismatch: { subject: 'status', expected: '4xx', observed: later.response?.status ?? null },
      exchangeIds: [ex.id, after.id, later.id],
    });
  },
  describe: () => 'revoke a browser served on its session, then send the same request on it',
});

const ACCOUNT: readonly Property[] = [deviceCreated, responseObject, endsSessions, headSeq];
export default ACCOUNT;
