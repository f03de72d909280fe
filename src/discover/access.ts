/**
 * Probes of who may call what (section 5 and the "not shown" of 4.1, 4.5, 4.6): requests without
 * credentials, a browser reporting usage, approving and revoking ids nobody listed, and (where the
 * run may change the account) two master-password changes of different sizes.
 */
import { must, type AssumptionName, type EndpointId, type ReadingOf } from '../spec/index.ts';
import { isObject } from '../gen/index.ts';
import type { Profile } from '../target/profile.ts';
import { missingCapability } from '../check/run/index.ts';
import { plainRequest } from '../check/model/plain.ts';
import { usageRow } from './build.ts';
import { answerOf, integerIn, type Scope } from './env.ts';
import { decide, notObservable, unknown, verdict, type ProbeResult } from './result.ts';

const NO_BROWSER = 'the profile has no browser credentials (accounts.primary.browser)';

/** credentials-required: a plain usage report without credentials. 1 request. */
export async function probeCredentials(scope: Scope): Promise<ProbeResult[]> {
  const ex = await scope.send('a plain usage report without credentials', { endpoint: 'reportUsage', params: { sourceId: scope.env.sourceId() }, body: { rows: [usageRow()] }, as: 'anonymous' });
  return [verdict(scope.evidence, 'credentials-required', answerOf(ex), 'open', 'rejected')];
}

/** caller-kinds: a browser reports usage, which the catalogue gives to devices. 1 request. */
export async function probeCallerKinds(scope: Scope): Promise<ProbeResult[]> {
  if (!scope.env.identity('browser')) return [notObservable('caller-kinds', NO_BROWSER)];
  const ex = await scope.send('a plain usage report by the browser', { endpoint: 'reportUsage', params: { sourceId: scope.env.sourceId() }, body: { rows: [usageRow()] }, as: { member: 'browser' } });
  return [verdict(scope.evidence, 'caller-kinds', answerOf(ex), 'any-member', 'catalogue')];
}

type Listed = 'cli-request-exists' | 'browser-exists';

/**
 * cli-request-exists / browser-exists: the plain request on an id nobody listed; when refused, on an
 * id the profile lists. 1-2 requests.
 */
async function probeListed<N extends Listed>(scope: Scope, name: N, endpoint: EndpointId, listed: readonly string[], field: keyof Profile, anyId: ReadingOf<N>, profileIds: ReadingOf<N>): Promise<ProbeResult[]> {
  if (!scope.env.identity('browser')) return [notObservable(name, NO_BROWSER)];
  const plain = plainRequest(endpoint);
  const fresh = answerOf(await scope.send(`${endpoint} on a fresh id`, { endpoint, params: plain.params, body: plain.body }));
  if (fresh === 'accepted') return [decide(name, [anyId], scope.evidence)];
  if (fresh === 'inconclusive') return [unknown(name, 'answered with a 5xx, no answer or a broken envelope', scope.evidence)];
  const id = listed[0];
  if (id === undefined) return [unknown(name, `a fresh id is refused, and the profile lists no ${String(field)} to tell a missing id from a refused request`, scope.evidence)];
  const again = answerOf(await scope.send(`${endpoint} on an id the profile lists`, { endpoint, params: { ...plain.params, id }, body: plain.body }));
  if (again === 'accepted') return [decide(name, [profileIds], scope.evidence)];
  return [unknown(name, 'refused on a fresh id and on a listed one alike', scope.evidence)];
}

export function probeCliRequests(scope: Scope): Promise<ProbeResult[]> {
  return probeListed(scope, 'cli-request-exists', 'approveDevice', scope.env.profile.cliRequestIds, 'cliRequestIds', 'any-id', 'profile-ids');
}

export function probeBrowsers(scope: Scope): Promise<ProbeResult[]> {
  return probeListed(scope, 'browser-exists', 'revokeBrowser', scope.env.profile.browserIds, 'browserIds', 'any-id', 'profile-ids');
}

/**
 * head-seq-semantics: a change with one statement, then one with two. A per-change counter rises by
 * one, a per-statement counter by two. 2 requests; only where the run may change the account.
 */
export async function probeHeadSeq(scope: Scope, embedded: boolean): Promise<ProbeResult[]> {
  const name: AssumptionName = 'head-seq-semantics';
  const env = scope.env;
  const missing = missingCapability(env.profile, 'account-changes', { embedded }) ?? (env.identity('browser') ? undefined : NO_BROWSER);
  if (missing) return [notObservable('head-seq-semantics', `not probed: ${missing}`)];
  const plain = plainRequest('changeUnlock').body;
  const statement = must(isObject(plain) && Array.isArray(plain['statements']) ? plain['statements'][0] : undefined, "the plain changeUnlock body holds 4.6's required statements");
  const change = async (what: string, n: number): Promise<number | undefined> => {
    const statements = Array.from({ length: n }, () => statement);
    const ex = await scope.send(what, { endpoint: 'changeUnlock', params: {}, body: { statements } });
    return answerOf(ex) === 'accepted' ? integerIn(ex, 'head_seq') : undefined;
  };
  const h1 = await change('a master-password change with 1 statement', 1);
  const h2 = await change('a master-password change with 2 statements', 2);
  if (h1 === undefined || h2 === undefined) return [unknown(name, 'a change was not accepted or answered no integer head_seq', scope.evidence)];
  const rise = h2 - h1;
  return [decide('head-seq-semantics', rise === 1 ? ['per-change'] : rise === 2 ? ['per-statement'] : [], scope.evidence, `head_seq ${h1} then ${h2}`)];
}
