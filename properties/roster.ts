/**
 * 2.3, 2.4, 2.8: the length, alphabet and key_gen limits of statements and key envelopes hold
 * only inside the revoke roster. Elsewhere (4.1, 4.4, 4.6) the same fields are plain strings and
 * a plain integer, so a value over a roster limit is accepted there and refused in the roster.
 */
import fc from 'fast-check';
import { expectRejected } from '../src/check/judge/judge.ts';
import { constraintJudgement, REFUSAL_READS, specJudgement } from '../src/check/judge/judgements.ts';
import { defineProperty, notApplicable, type Property } from '../src/check/property.ts';
import { arbitraryOf, isObject, type Json, type JsonObject } from '../src/gen/index.ts';
import { CHARSETS, KeyEnvelope, LIMITS, REQUEST_CONSTRAINTS, Statement, must, type Constraint, type EndpointId, type LimitName } from '../src/spec/index.ts';
import { VALUE_READINGS } from './shapes.ts';
import { mustAccept, prepare } from './support/requests.ts';

/** 2.4: outside the roster the fields are plain strings. */
// A refusal of a request the spec's words allow: whatever a refused valid request may rest on.
const PLAIN_OUTSIDE = specJudgement('roster.plain-outside', 'Outside the revoke roster, statements and key envelopes over a roster-only limit are accepted.', 'rosterOnlyLimits', REFUSAL_READS);
/** 2.3, 2.4, 2.8: inside the roster the limits hold. */
// The breach is ASCII or a number, over its limit in every unit; only what counts as a refusal is read.
const ROSTER_LIMITS = constraintJudgement('roster.limits-inside', 'Inside the revoke roster, a statement or key envelope over a roster limit is refused.', { reads: ['error-response'] });

/** The roster constraint a breach of `field` breaks (its clause is what a lax roster violates). */
function rosterConstraint(field: Field, breach: Breach): Constraint | undefined {
  const path =
    field === 'statement' || field === 'signature' ? `roster.statements[].${field}` : field === 'envelope-signature' ? 'roster.key_envelopes[].signature' : `roster.key_envelopes[].${field}`;
  const kind = field === 'key_gen' ? 'min' : breach === 'too-long' ? 'maxLength' : 'charset';
  return REQUEST_CONSTRAINTS.find((c) => c.endpoint === 'revokeBrowser' && c.scope === 'body' && c.path === path && c.kind === kind);
}


type Field = 'statement' | 'signature' | 'hpke_enc' | 'ciphertext' | 'envelope-signature' | 'key_gen';
type Breach = 'too-long' | 'outside-alphabet';

const LENGTH_OF: Readonly<Record<Exclude<Field, 'key_gen'>, LimitName>> = {
  statement: 'rosterStatementLength',
  signature: 'rosterSignatureLength',
  hpke_enc: 'rosterHpkeEncLength',
  ciphertext: 'rosterCiphertextLength',
  'envelope-signature': 'rosterSignatureLength',
};

/** A character the roster alphabet excludes. */
const OUTSIDE = must(['+', '/', '=', '.'].find((ch) => !CHARSETS.base64url.chars.includes(ch)), 'base64url holds none of + / = .');

function breachValue(field: Field, breach: Breach): Json {
  if (field === 'key_gen') return LIMITS.keyGen.min - 1;
  const max = LIMITS[LENGTH_OF[field]].max;
  return breach === 'too-long' ? 'A'.repeat(max + 1) : `AB${OUTSIDE}CD`;
}

interface Case {
  readonly endpoint: Extract<EndpointId, 'approveDevice' | 'registerPasskey' | 'changeUnlock'>;
  readonly field: Field;
  readonly breach: Breach;
  readonly statement: JsonObject;
  readonly envelope: JsonObject;
}

const arbCase: fc.Arbitrary<Case> = fc.record({
  endpoint: fc.constantFrom('approveDevice' as const, 'registerPasskey' as const, 'changeUnlock' as const),
  field: fc.constantFrom<Field>('statement', 'signature', 'hpke_enc', 'ciphertext', 'envelope-signature', 'key_gen'),
  breach: fc.constantFrom<Breach>('too-long', 'outside-alphabet'),
  statement: arbitraryOf(Statement, { mode: 'lean' }).filter(isObject),
  envelope: arbitraryOf(KeyEnvelope, { mode: 'lean' }).filter(isObject),
});

/** The statement and envelope with the breach applied. */
function breached(c: Case): { statement: JsonObject; envelope: JsonObject; cleanStatement: JsonObject } {
  const value = breachValue(c.field, c.breach);
  // Start from values valid inside the roster too, so the breach is the only difference.
  const statement: JsonObject = { ...c.statement, statement: 'c3RhdGVtZW50', signature: 'c2lnbmF0dXJl' };
  const envelope: JsonObject = { ...c.envelope, key_gen: LIMITS.keyGen.min, hpke_enc: 'ZW5j', ciphertext: 'Y2lwaGVy', signature: 'c2lnbmF0dXJl' };
  const cleanStatement = { ...statement };
  if (c.field === 'statement' || c.field === 'signature') statement[c.field] = value;
  else if (c.field === 'envelope-signature') envelope['signature'] = value;
  else envelope[c.field] = value;
  return { statement, envelope, cleanStatement };
}

function bodyOutsideRoster(c: Case, statement: JsonObject, envelope: JsonObject): JsonObject {
  switch (c.endpoint) {
    case 'approveDevice':
      return { statement, welcome: '', key_envelopes: [envelope] };
    case 'registerPasskey':
      return { response: {}, statement, key_envelopes: [envelope] };
    case 'changeUnlock':
      return { statements: [statement], key_envelopes: [envelope] };
  }
}

// 2.3/2.4: outside the roster, statements and envelopes are plain strings and a plain integer.
const limitsOnlyInRoster = defineProperty({
  id: 'roster.limits-only-in-roster',
  section: '2.4',
  invariant: 'A statement or key envelope beyond a roster-only limit is accepted in 4.1, 4.4 and 4.6, and refused inside the revoke roster (4.5).',
  assumptions: ['opaque-crypto-fields', 'cli-request-exists', 'browser-exists', 'unlock-prepare', 'caller-kinds', ...VALUE_READINGS],
  judgements: [PLAIN_OUTSIDE, ROSTER_LIMITS],
  needs: ['browser'],
  arbitrary: () => arbCase,
  async check(ctx, drawn) {
    // Without `account-changes`, the 4.6 cases are judged at 4.4 instead: the same statements, no password change.
    const c: Case = drawn.endpoint === 'changeUnlock' && !ctx.allows('account-changes') ? { ...drawn, endpoint: 'registerPasskey' } : drawn;
    const { statement, envelope, cleanStatement } = breached(c);
    const what = `${c.field} ${c.field === 'key_gen' ? `= ${LIMITS.keyGen.min - 1}` : c.breach}`;
    const outside = prepare(ctx, c.endpoint, { params: paramsFor(c.endpoint, ctx.uuid()), body: bodyOutsideRoster(c, statement, envelope) });
    const ex = await ctx.call({ endpoint: c.endpoint, params: outside.params, body: outside.body });
    const accepted = await mustAccept(ctx, c.endpoint, ex, outside, { what: `${c.endpoint} with a statement or envelope whose ${what} (a roster-only limit)`, field: PLAIN_OUTSIDE });
    if (!accepted.ok) return accepted;
    if (ex.verdict !== 'accepted') return notApplicable('refused outside the roster as the run\'s readings expect: nothing to compare inside it');
    // The same values inside the roster break 2.8 by the letter.
    const roster: JsonObject =
      c.field === 'statement' || c.field === 'signature' ? { statements: [statement] } : { statements: [cleanStatement], key_envelopes: [envelope] };
    const inside = prepare(ctx, 'revokeBrowser', { params: { id: ctx.uuid() }, body: { roster } });
    const ex2 = await ctx.call({ endpoint: 'revokeBrowser', params: inside.params, body: inside.body });
    const rc = must(rosterConstraint(c.field, c.breach), `the inventory lists a roster constraint for ${c.field} ${c.breach}`);
    return expectRejected(ex2, { what: `a revoke roster whose ${what}`, blame: { judgement: ROSTER_LIMITS, clause: rc.clause }, assumptions: ctx.assumptions });
  },
  describe: (c) => `${c.endpoint}: ${c.field} ${c.breach}`,
});

function paramsFor(endpoint: EndpointId, id: string): Record<string, string> {
  return endpoint === 'approveDevice' ? { id } : {};
}

const ROSTER: readonly Property[] = [limitsOnlyInRoster];
export default ROSTER;
