/**
 * Sending generated requests to a live target: fresh identities at execution time (`freshen`),
 * pouch, cli-auth request and browser ids drawn from the profile when the readings say only listed
 * ones exist, and the plain per-endpoint baseline that separates "this request was refused" from
 * "this endpoint refuses everything we send it".
 */
import fc from 'fast-check';
import { judgeRefusal, readingsOf } from '../../src/check/judge.ts';
import type { CaseContext, Outcome } from '../../src/check/property.ts';
import { bodyArbitrary, freshUuid, freshen, paramsArbitrary, type Json, type Params } from '../../src/gen/index.ts';
import { ENDPOINT_BY_ID, PATTERNS, type AssumptionName, type EndpointId } from '../../src/spec/index.ts';
import type { Exchange } from '../../src/target/client.ts';

export interface Sample {
  readonly params: Params;
  readonly body: Json;
}

/** What a plain request of each endpoint rests on when even it is refused. */
export const ENVIRONMENT: Readonly<Record<EndpointId, AssumptionName>> = {
  approveDevice: 'cli-request-exists',
  commitOperations: 'pouch-existence',
  reportUsage: 'caller-kinds',
  registerPasskey: 'opaque-crypto-fields',
  revokeBrowser: 'browser-exists',
  changeUnlock: 'unlock-prepare',
};

const isUuid = (v: string | undefined): v is string => v !== undefined && PATTERNS.uuid.regex.test(v);

function pick(ctx: CaseContext, list: readonly string[]): string | undefined {
  if (list.length === 0) return undefined;
  return list[parseInt(ctx.uuid().slice(0, 8), 16) % list.length];
}

/**
 * A generated request made safe for a shared target: fresh ids (in the generated case form), and
 * listed ids where the profile's readings require them. Broken values (a violation's label) stay.
 */
export function prepare(ctx: CaseContext, endpoint: EndpointId, sample: Sample): Sample {
  const fresh = freshen(endpoint, { params: sample.params, body: sample.body });
  const params: Params = { ...fresh.params };
  const listed = (name: string, reading: string, list: readonly string[]) => {
    if (!isUuid(params[name])) return;
    const id = ctx.assumptions[reading as AssumptionName] === (reading === 'pouch-existence' ? 'must-exist' : 'profile-ids') ? pick(ctx, list) : undefined;
    params[name] = id ?? freshUuid(params[name]);
  };
  if (endpoint === 'commitOperations') listed('pouchId', 'pouch-existence', ctx.profile.pouchIds);
  if (endpoint === 'approveDevice') listed('id', 'cli-request-exists', ctx.profile.cliRequestIds);
  if (endpoint === 'revokeBrowser') listed('id', 'browser-exists', ctx.profile.browserIds);
  return { params, body: fresh.body };
}

export function send(ctx: CaseContext, endpoint: EndpointId, sample: Sample, extra: { rawBody?: Uint8Array | string } = {}): Promise<Exchange> {
  const s = prepare(ctx, endpoint, sample);
  return ctx.call({ endpoint, params: s.params, body: s.body, ...extra });
}

/** The smallest valid request of each endpoint (deterministic, then freshened per use). */
const PLAIN: Readonly<Record<EndpointId, Sample>> = Object.fromEntries(
  Object.keys(ENDPOINT_BY_ID).map((id) => {
    const e = id as EndpointId;
    const [sample] = fc.sample(fc.record({ params: paramsArbitrary(e, { mode: 'lean' }), body: bodyArbitrary(e, { mode: 'lean' }) }), { numRuns: 1, seed: 1 });
    return [e, sample!];
  }),
) as Record<EndpointId, Sample>;

export function plainRequest(endpoint: EndpointId): Sample {
  return PLAIN[endpoint];
}

export function sendPlain(ctx: CaseContext, endpoint: EndpointId): Promise<Exchange> {
  return send(ctx, endpoint, PLAIN[endpoint]);
}

/**
 * Judges a request that must be accepted. On a refusal, a plain request of the same endpoint is
 * sent: if it is refused too, the finding is about the environment (an assumption), not the case.
 */
export async function mustAccept(
  ctx: CaseContext,
  endpoint: EndpointId,
  ex: Exchange,
  o: { what: string; body: unknown; assumption?: string },
): Promise<Outcome> {
  const readings = [...(o.assumption ? [o.assumption as AssumptionName] : []), ...readingsOf(endpoint, o.body)];
  if (ex.verdict === 'accepted' || !ex.response || ex.response.status < 400 || ex.response.status >= 500) {
    return judgeRefusal(ex, { what: o.what, readings, environment: ENVIRONMENT[endpoint] });
  }
  const baseline = readings.length > 0 ? undefined : await sendPlain(ctx, endpoint);
  return judgeRefusal(ex, { what: o.what, readings, environment: ENVIRONMENT[endpoint], ...(baseline ? { baseline } : {}) });
}
