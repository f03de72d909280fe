/**
 * Section 4 as a whole and 2.1: valid requests to all six endpoints are accepted, and every success
 * answers the common envelope with the endpoint's `data`.
 */
import fc from 'fast-check';
import { describeResponse, unexpected, violation } from '../src/check/judge/judge.ts';
import { READING_FREE, SUCCESS_ENVELOPE, specJudgement } from '../src/check/judge/judgements.ts';
import { issuesAt } from '../src/check/judge/success-shape.ts';
import { PASS, defineProperty, unknownOutcome, type CaseContext, type Outcome, type Property } from '../src/check/property.ts';
import { isObject, validRequest, withUnlisted } from '../src/gen/index.ts';
import { ENDPOINTS, ENDPOINT_BY_ID, must, type EndpointId } from '../src/spec/index.ts';
import type { Exchange } from '../src/target/client.ts';
import { mustAccept, prepare, type Sample } from './support/requests.ts';

/** The readings a valid value may rest on (controls name them when they explain a refusal). */
export const VALUE_READINGS = ['characters-are-code-points', 'usage-counters-negative', 'unknown-fields-ignored', 'empty-lists', 'usage-day-window', 'batch-chaining'] as const;

type Round = readonly { endpoint: EndpointId; sample: Sample }[];

/** A master-password change (4.6) only where the run may change the account (capability `account-changes`). */
function mayCall(ctx: CaseContext, endpoint: EndpointId): boolean {
  return endpoint !== 'changeUnlock' || ctx.allows('account-changes');
}

/**
 * One valid request per endpoint: edge-biased, now and then one field at a limit; with `unlisted`, one
 * in five carries a member the spec does not list (the probe asks `unknown-fields-ignored` of one usage
 * report only, and a server may read other bodies otherwise).
 */
const arbRound = (boundaries: boolean, unlisted: boolean): fc.Arbitrary<Round> =>
  fc.tuple(
    ...ENDPOINTS.map((e) => {
      const valid = validRequest(e.id, { boundaries });
      const sample = unlisted ? fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: withUnlisted(e.id, valid) }) : valid;
      return sample.map((s) => ({ endpoint: e.id, sample: s }));
    }),
  );

const describeRound = (r: Round) => r.map((x) => `${x.endpoint} ${JSON.stringify(x.sample).slice(0, 400)}`).join('\n');

// Section 4: a request that meets every stated constraint is accepted.
const validAccepted = defineProperty({
  id: 'shapes.valid-accepted',
  section: '4',
  invariant: 'A request that meets every constraint of sections 2 and 4 is accepted, at every endpoint.',
  assumptions: ['opaque-crypto-fields', 'op-semantics', 'pouch-existence', 'cli-request-exists', 'browser-exists', 'unlock-prepare', 'caller-kinds', ...VALUE_READINGS],
  needs: ['browser', 'device'],
  arbitrary: () => arbRound(true, true),
  async check(ctx, round) {
    for (const { endpoint, sample } of round) {
      if (!mayCall(ctx, endpoint)) continue;
      const s = prepare(ctx, endpoint, sample);
      const ex = await ctx.call({ endpoint, params: s.params, body: s.body });
      const o = await mustAccept(ctx, endpoint, ex, s, { what: `a valid ${endpoint} request (${ENDPOINT_BY_ID[endpoint].section})` });
      if (!o.ok) return o;
    }
    return PASS;
  },
  describe: describeRound,
});

/** The intro: bodies are JSON, answers included. */
const JSON_BODY = specJudgement('shapes.json-body', 'A success answers a JSON body with Content-Type application/json.', 'jsonBodies', READING_FREE);
/** 7: "Success responses carry ok true". */
const OK_TRUE = specJudgement('shapes.ok-true', 'A success carries ok: true.', 'successOkTrue', READING_FREE);

/**
 * 2.1 and the endpoint's data, judged on the raw response rather than the client's verdict; the
 * schema's issues are those the client found on it (classify.ts, kept on the exchange: it reads a 2xx
 * JSON answer that is no refusal as this does).
 */
export function envelopeOutcome(endpoint: EndpointId, ex: Exchange): Outcome {
  const u = unexpected(ex);
  if (u) return u;
  const r = must(ex.response, 'unexpected() answers for every exchange without a response');
  if (r.status < 200 || r.status >= 300 || ex.verdict === 'rejected') return PASS;
  const what = `${ENDPOINT_BY_ID[endpoint].section} success (${describeResponse(ex)})`;
  const media = (r.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (media !== 'application/json') return violation(JSON_BODY, `${what}: content type ${JSON.stringify(r.headers['content-type'] ?? '')} is not application/json`);
  if (r.json === undefined) return violation(JSON_BODY, `${what}: the body is not JSON`);
  const issues = ex.schemaIssues ?? [];
  if (issues.length > 0) {
    return violation(SUCCESS_ENVELOPE, `${what}: breaks the envelope (2.1) or the ${endpoint} data schema at ${issuesAt(issues)}`);
  }
  if (!isObject(r.json) || r.json.ok !== true) return violation(OK_TRUE, `${what}: a success must carry ok: true`);
  return PASS;
}

// 2.1: every success carries ok true, data shaped per endpoint, and meta.request_id.
const responseEnvelope = defineProperty({
  id: 'shapes.response-envelope',
  section: '2.1',
  invariant: 'Every success answers the common envelope (ok true, data, meta.request_id) with the data fields its endpoint lists.',
  assumptions: [],
  judgements: [SUCCESS_ENVELOPE, JSON_BODY, OK_TRUE],
  needs: ['browser', 'device'],
  arbitrary: () => arbRound(false, false),
  async check(ctx, round) {
    let successes = 0;
    for (const { endpoint, sample } of round) {
      if (!mayCall(ctx, endpoint)) continue;
      const s = prepare(ctx, endpoint, sample);
      const ex = await ctx.call({ endpoint, params: s.params, body: s.body });
      const o = envelopeOutcome(endpoint, ex);
      if (!o.ok) return o;
      if (ex.response && ex.response.status >= 200 && ex.response.status < 300 && ex.verdict !== 'rejected') successes++;
    }
    // Only a success has an envelope to judge; that valid requests succeed is shapes.valid-accepted's business.
    return successes > 0 ? PASS : unknownOutcome('no request of the round succeeded: no success envelope to judge');
  },
  describe: describeRound,
});

const SHAPES: readonly Property[] = [validAccepted, responseEnvelope];
export default SHAPES;
