/**
 * Whether the plain request of an endpoint is served at all, asked once per run. When even it is
 * refused, no case of that endpoint can be judged, and no reading may quietly switch the endpoint's
 * properties off. The refusal is put down, in this order, to:
 *
 * 0. an optional member the target requires, when the same request with its optional members present
 *    is accepted: the plain request leaves them all out, which the spec's "Required: no" allows, so
 *    the refusal is a violation whatever the readings;
 * 1. the environment, when the plain request sat in a reading's cover the profile can lift (a pouch,
 *    cli-auth request or browser the profile does not list): unknown, with what to add to the profile;
 * 2. a reading a control identifies (the listed pouch taken, or the other JWS form): an assumption;
 * 3. fields whose meaning the spec does not show, which the harness can only fill with placeholders
 *    (statements, passkey responses, a prepare step): unknown;
 * 4. otherwise the harness made the refused request as the spec states it, with the profile's
 *    credentials: the endpoint is not served, a violation of what the spec says it does.
 */
import { ASSUMPTIONS, ENDPOINT_BY_ID, REQUEST_CONSTRAINTS, must, readingsOf, type AssumptionName, type EndpointId, type ReadingOf } from '../../spec/index.ts';
import type { CallOptions, Exchange } from '../../target/client.ts';
import { assumptionMismatch, constraintViolation, describeResponse, isRefusal, refusedAfterResend, unexpected, violation } from './judge.ts';
import { FIELD_WITHIN_CONSTRAINTS, SERVES } from './judgements.ts';
import { optionalMembers, plainRequest, type OptionalMembers } from '../model/plain.ts';
import { prepare } from '../run/prepare.ts';
import { PASS, unknownOutcome, type CaseContext, type EnvironmentDiagnosis, type Outcome } from '../property.ts';

/** What the profile can add to lift each listed-id cover. */
const HINTS = {
  pouch: 'add "pouchIds" to the profile: pouches the primary device may commit to (nothing could be committed, and without a listed pouch a pouch that must exist cannot be told from a refused commit)',
  'cli-request': 'add "cliRequestIds" to the profile: pending cli-auth requests the browser may approve',
  browser: 'add "browserIds" to the profile: browser members the browser may revoke',
} as const;

/** Endpoints whose plain request carries fields the spec gives no meaning for: the harness sends placeholders. */
const PLACEHOLDERS: { readonly [E in EndpointId]?: string } = {
  approveDevice: 'its statement, welcome and key envelopes are placeholders (4.1: their meaning and encoding are not shown)',
  registerPasskey: 'its passkey response and statement are placeholders (4.4: their meaning is not shown)',
  changeUnlock: 'its statements are placeholders, and the step that prepares the parameters is not shown (4.6)',
};

/** `again`: the diagnosis decided nothing this time (a control the nemesis made indeterminate); the next case asks anew. */
type Diagnosis = { readonly served: true } | { readonly served: false; readonly outcome: Outcome; readonly again?: true };

/** The run's memory of which endpoints serve their plain request (one diagnosis per endpoint). */
export class Environment implements EnvironmentDiagnosis {
  private readonly known = new Map<EndpointId, Promise<Diagnosis>>();

  /** PASS when the plain request of `endpoint` is served; otherwise the outcome every refused case of it gets. */
  async plain(ctx: CaseContext, endpoint: EndpointId): Promise<Outcome> {
    let d = this.known.get(endpoint);
    if (!d) {
      d = diagnose(ctx, endpoint).catch((e: unknown) => {
        if (e instanceof Indeterminate) return { served: false, outcome: e.outcome, again: true } as const;
        throw e;
      });
      this.known.set(endpoint, d);
      // A diagnosis the network cut short, or the nemesis left indeterminate, is asked again by the next case.
      d.then((x) => !x.served && (x.again || (!x.outcome.ok && x.outcome.kind === 'transport')) && this.known.delete(endpoint)).catch(() => this.known.delete(endpoint));
    }
    const x = await d;
    return x.served ? PASS : x.outcome;
  }
}

/** A request of the diagnosis refused after the nemesis made pouchproof send it again: it may be refused for its own first copy. */
class Indeterminate extends Error {
  constructor(readonly outcome: Outcome) {
    super('indeterminate');
  }
}

/**
 * Every request of the diagnosis is a control whose refusal may decide the verdict, so a refusal
 * of a copy sent again after no answer (a replayed operation_id under replay-rejected) ends it.
 */
async function send(ctx: CaseContext, o: CallOptions): Promise<Exchange> {
  const ex = await ctx.call(o);
  const indeterminate = refusedAfterResend(ex);
  if (indeterminate) throw new Indeterminate(indeterminate);
  return ex;
}

async function diagnose(ctx: CaseContext, endpoint: EndpointId): Promise<Diagnosis> {
  const e = ENDPOINT_BY_ID[endpoint];
  const sample = prepared(ctx, endpoint);
  const first = await send(ctx, sample);
  if (first.verdict === 'accepted') return { served: true };
  const u = unexpected(first, `the plain ${endpoint} request`);
  if (u || !isRefusal(first)) return { served: false, outcome: u ?? unknownOutcome(`the plain ${endpoint} request was answered ${describeResponse(first)}`) };
  const what = `a plain ${endpoint} request (${e.section})`;
  const refused = `${what} is refused (${describeResponse(first)})`;

  // 0. An optional member the target requires.
  const required = await optionalRequired(ctx, endpoint, refused);
  if (required) return { served: false, outcome: required };

  // 1. A listed-id cover the profile can lift; past it, every control names a listed id.
  let params: Record<string, string> = { ...sample.params };
  // The reading a fresh id was served under, with no listed id to control it: the verdict rests on it.
  let uncovered: { readonly name: AssumptionName; readonly hint: string } | undefined;
  const listed = Object.entries(e.params).map(([name, node]) => ({ name, l: node.kind === 'uuid' ? node.listedUnder : undefined })).find((x) => x.l);
  if (listed?.l) {
    const ids = listedIds(ctx, listed.l.list);
    const listedId = ids[0];
    // No listed id to try: the run's reading says whether a fresh one is served (the probe may have seen a
    // fresh pouch take a browser's commit). Read here, it is consulted: a guess leaves the verdict unknown.
    if (listedId === undefined && ctx.assumptions[listed.l.assumption] === listed.l.reading) {
      return { served: false, outcome: unknownOutcome(`${refused}, to an id the profile does not list: ${listed.l.assumption}=${listed.l.reading} would refuse it, and nothing else can be told`, HINTS[listed.l.list]) };
    }
    if (listedId === undefined) uncovered = { name: listed.l.assumption, hint: HINTS[listed.l.list] };
    else if (!ids.includes(params[listed.name])) {
      // The run reads that any id serves; a listed one is the control.
      params = { ...params, [listed.name]: listedId };
      const again = await send(ctx, prepared(ctx, endpoint, { params: { [listed.name]: listedId } }));
      if (again.verdict === 'accepted') return { served: false, outcome: assumptionMismatch(listed.l.assumption, `${refused}, while the same request naming an id the profile lists is accepted: only listed ids are served (${listed.l.assumption}=${listed.l.reading})`) };
    }
  }
  // 2. The other JWS form, for a signed commit.
  if (e.signedByDevice) {
    const other = otherForm(ctx);
    const signed = await send(ctx, { ...prepared(ctx, endpoint, { params: listedOf(params, endpoint) }), assumptions: { ...ctx.assumptions, 'jws-form': other } });
    if (signed.verdict === 'accepted') return { served: false, outcome: assumptionMismatch('jws-form', `${refused}, while the same commit signed in the ${other} JWS form is accepted`) };
  }
  // 3. Placeholders for what the spec gives no meaning.
  const placeholder = PLACEHOLDERS[endpoint];
  if (placeholder) return { served: false, outcome: unknownOutcome(`${refused}; ${placeholder}, so the refusal may be the target checking what pouchproof cannot make`) };
  // A usage report refused from the device but taken from a browser: who reports usage is a choice no reading names.
  if (endpoint === 'reportUsage' && ctx.allows('browser')) {
    const asBrowser = await send(ctx, { ...prepared(ctx, endpoint), as: { member: 'browser' } });
    if (asBrowser.verdict === 'accepted') return { served: false, outcome: unknownOutcome(`${refused} from the command-line device, and accepted from the browser: which member reports usage is not shown, and no reading of caller-kinds says browsers only`) };
  }
  // 4. Made as the spec states: not served.
  // Only its status is compared, for the hint: a copy refused after a resend says as much.
  const anonymous = await ctx.call({ ...prepared(ctx, endpoint, { params: listedOf(params, endpoint) }), as: 'anonymous', ...(e.signedByDevice ? { signature: 'omit' as const } : {}) });
  const alike = anonymous.response?.status === first.response?.status;
  const creds = alike ? `; the same request without credentials is answered alike (${describeResponse(anonymous)}), so if the profile's credentials for accounts.primary.${e.caller} are no longer valid, that is the cause` : '';
  const how = e.signedByDevice ? ', signed as section 5 states in either JWS form over bytes that are canonical under every reading,' : '';
  // The controls above decide it on their own: every alternative the plain request could rest on was
  // tried (a listed id, both JWS forms, bytes canonical under every reading), so no reading the probe
  // left unidentified, whatever the case consulted on its way here, makes it a guess.
  return { served: false, outcome: violation(SERVES[endpoint], `${what}${how} is refused (${describeResponse(first)}), and no reading of the registry covers it${creds}`, { independentOf: ASSUMPTIONS.map((a) => a.name).filter((n) => n !== uncovered?.name), ...(uncovered ? { hintIfUnknown: uncovered.hint } : {}) }) };
}

/**
 * The plain request again with every optional member present (null where nullable): accepted, the
 * refusal rests on a member the spec lets a client leave out. Each member is then added alone to name
 * it. The filled request is a control of its own (same credentials, same kind of fresh ids), so no
 * reading the probe left unidentified can explain the difference: none names an optional member.
 */
async function optionalRequired(ctx: CaseContext, endpoint: EndpointId, refused: string): Promise<Outcome | undefined> {
  const members = optionalMembers(endpoint);
  if (members.length === 0) return undefined;
  const filled = await send(ctx, prepared(ctx, endpoint, { fill: () => true }));
  if (filled.verdict !== 'accepted') return undefined;
  const everyReading = { independentOf: ASSUMPTIONS.map((a) => a.name) };
  for (const m of members) {
    if (ctx.signal.aborted) return undefined;
    const alone = await send(ctx, prepared(ctx, endpoint, { fill: (p) => p === m || m.startsWith(`${p}.`) || m.startsWith(`${p}[]`) }));
    if (alone.verdict !== 'accepted') continue;
    // The refusal must reproduce, or a target that refuses at random has its luck pinned on a member.
    if ((await send(ctx, prepared(ctx, endpoint))).verdict === 'accepted') return undefined;
    const c = REQUEST_CONSTRAINTS.find((x) => x.endpoint === endpoint && x.scope === 'body' && x.path === m && x.kind === 'type');
    const why = `${refused}, while the same request with only ${m} added (its plain value) is accepted: the spec lists ${m} as not required, and no reading covers its absence`;
    return c ? { ...constraintViolation(FIELD_WITHIN_CONSTRAINTS, c.clause, why), ...everyReading } : violation(SERVES[endpoint], why, everyReading);
  }
  return violation(SERVES[endpoint], `${refused}, while the same request with its optional members present (${members.join(', ')}) is accepted: the spec lets a client leave each out`, everyReading);
}

/** The plain request with fresh ids, as a call: with the optional members `fill` names, and `params` in place of the drawn ones. */
function prepared(ctx: CaseContext, endpoint: EndpointId, o: { readonly fill?: OptionalMembers; readonly params?: Readonly<Record<string, string>> } = {}): CallOptions {
  const s = prepare(ctx, endpoint, plainRequest(endpoint, o.fill));
  return { endpoint, params: { ...s.params, ...o.params }, body: s.body };
}

function listedIds(ctx: CaseContext, list: 'pouch' | 'cli-request' | 'browser'): readonly string[] {
  switch (list) {
    case 'pouch':
      return ctx.profile.pouchIds;
    case 'cli-request':
      return ctx.profile.cliRequestIds;
    case 'browser':
      return ctx.profile.browserIds;
    default:
      return list satisfies never;
  }
}

/** The listed path parameters of a sample, kept for a control (a commit's pouch). */
function listedOf(params: Readonly<Record<string, string>>, endpoint: EndpointId): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, node] of Object.entries(ENDPOINT_BY_ID[endpoint].params)) if (node.kind === 'uuid' && node.listedUnder && params[name] !== undefined) out[name] = params[name];
  return out;
}

function otherForm(ctx: CaseContext): ReadingOf<'jws-form'> {
  return must(readingsOf('jws-form').find((f) => f !== ctx.assumptions['jws-form']), 'jws-form has two readings in the registry: the one in force and another');
}
