/**
 * The account operations' own promises: 4.1 creates a device and names it, 4.4 takes a free-form
 * `response` object and answers an object, 4.6 moves a head forward.
 */
import fc from 'fast-check';
import { dataOf, violation } from '../src/check/judge.ts';
import { PASS, defineProperty, type Property } from '../src/check/property.ts';
import { validRequest, type JsonObject } from '../src/gen/index.ts';
import { PATTERNS } from '../src/spec/index.ts';
import { envelopeOutcome } from './shapes.ts';
import { mustAccept, prepare, type Sample } from './support/requests.ts';

// 4.1: approving a cli-auth request creates a device and answers its uuid.
const deviceCreated = defineProperty({
  id: 'approve.device-created',
  section: '4.1',
  invariant: 'Each approval answers data.device_id, a uuid (2.2), and two approvals create two different devices.',
  assumptions: ['cli-request-exists', 'opaque-crypto-fields'],
  needs: ['browser'],
  arbitrary: () => fc.tuple(validRequest('approveDevice', { boundaries: false }), validRequest('approveDevice', { boundaries: false })),
  async check(ctx, pair) {
    const ids: string[] = [];
    for (const sample of pair) {
      const s = prepare(ctx, 'approveDevice', sample);
      const ex = await ctx.call({ endpoint: 'approveDevice', params: s.params, body: s.body });
      const acc = await mustAccept(ctx, 'approveDevice', ex, { what: 'approving a cli-auth request', body: s.body });
      if (!acc.ok) return acc;
      const id = dataOf(ex)?.['device_id'];
      if (typeof id !== 'string' || !PATTERNS.uuid.regex.test(id)) {
        return violation(`an approval answered data ${JSON.stringify(dataOf(ex) ?? null).slice(0, 200)} without a uuid device_id (4.1)`);
      }
      ids.push(id.toLowerCase());
    }
    return ids[0] === ids[1] ? violation(`two approvals of different requests both answered device_id ${ids[0]}: one device for two`) : PASS;
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
  assumptions: ['opaque-crypto-fields', 'unknown-fields-ignored'],
  needs: ['browser'],
  arbitrary: () => fc.tuple(validRequest('registerPasskey', { boundaries: false }), arbResponse),
  async check(ctx, [sample, response]) {
    const s = prepare(ctx, 'registerPasskey', { params: sample.params, body: { ...sample.body, response } });
    const ex = await ctx.call({ endpoint: 'registerPasskey', params: s.params, body: s.body });
    const acc = await mustAccept(ctx, 'registerPasskey', ex, { what: 'registering a passkey with a free-form response', body: s.body });
    if (!acc.ok) return acc;
    return envelopeOutcome('registerPasskey', ex);
  },
});

// 4.6: each accepted change of the master password moves the account's head forward.
const headSeq = defineProperty({
  id: 'unlock.head-seq',
  section: '4.6',
  invariant: 'Successive accepted master-password changes answer strictly increasing data.head_seq.',
  assumptions: ['seq-semantics', 'unlock-prepare', 'opaque-crypto-fields'],
  needs: ['browser', 'account-changes'],
  runs: 10,
  arbitrary: () => fc.array(validRequest('changeUnlock', { boundaries: false }), { minLength: 2, maxLength: 3 }),
  async check(ctx, samples: Sample[]) {
    let last: number | undefined;
    for (const [i, sample] of samples.entries()) {
      const s = prepare(ctx, 'changeUnlock', sample);
      const ex = await ctx.call({ endpoint: 'changeUnlock', params: s.params, body: s.body });
      const acc = await mustAccept(ctx, 'changeUnlock', ex, { what: `master-password change ${i + 1}`, body: s.body });
      if (!acc.ok) return acc;
      const seq = dataOf(ex)?.['head_seq'];
      if (typeof seq !== 'number' || !Number.isInteger(seq)) return envelopeOutcome('changeUnlock', ex);
      if (last !== undefined && !(seq > last)) return violation(`master-password change ${i + 1} answered head_seq ${seq}, not above the previous change's ${last}`);
      last = seq;
    }
    return PASS;
  },
});

const ACCOUNT: readonly Property[] = [deviceCreated, responseObject, headSeq];
export default ACCOUNT;
