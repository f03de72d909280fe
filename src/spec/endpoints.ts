/**
 * Section 4: the six endpoints. Each entry says everything the rest of pouchproof needs to build a
 * request and judge its answer: method, path template and its parameters, body, success `data`,
 * whether `Service-Signature` applies (section 5), the member kind that normally calls it, and what
 * a plain request of it rests on when a target refuses it. Each entry keeps its types:
 * `EndpointBody<'commitOperations'>` is the type of a valid commit body.
 */
import type { AssumptionName } from './assumptions.ts';
import { API_PREFIX } from './limits.ts';
import { anyObject, arr, bool, int, obj, optional, str, uuid, type Infer, type ListedUnder, type Node, type ObjectNode } from './model.ts';
import { KeyEnvelope, OperationResult, PouchOperation, Roster, Statement, UsageRow } from './resources.ts';

/** Who calls an endpoint (assumption `caller-kinds`): credentials come from the profile per kind. */
export type MemberKind = 'browser' | 'device';

/** Section 5's header, as HTTP field names are compared: in lower case. */
export const SIGNATURE_HEADER = 'service-signature';

export type EndpointId = 'approveDevice' | 'commitOperations' | 'reportUsage' | 'registerPasskey' | 'revokeBrowser' | 'changeUnlock';

/** Path parameters by name. Any string indexes them (code that walks parameters by name). */
export type ParamNodes = Readonly<Record<string, Node>>;

export interface Endpoint<
  Id extends EndpointId = EndpointId,
  P extends ParamNodes = ParamNodes,
  B extends ObjectNode = ObjectNode,
  D extends ObjectNode = ObjectNode,
> {
  readonly id: Id;
  readonly section: string;
  readonly title: string;
  readonly method: 'POST' | 'PUT';
  /** Relative to {base_url}, with `{name}` placeholders; begins with the `/v1` prefix (section 9). */
  readonly pathTemplate: string;
  readonly params: P & ParamNodes;
  readonly body: B;
  readonly data: D;
  /** Section 5: command-line devices must send `Service-Signature` on this endpoint. */
  readonly signedByDevice: boolean;
  readonly caller: MemberKind;
  /**
   * What a plain, valid request of this endpoint rests on when even it is refused: the registry
   * reading that explains "this endpoint refuses everything we send" (a pouch that must exist first,
   * a cli-auth request that only the profile knows…), as opposed to a refusal of one case.
   */
  readonly environment: AssumptionName;
}

function endpoint<Id extends EndpointId, P extends ParamNodes, B extends ObjectNode, D extends ObjectNode>(
  e: Omit<Endpoint<Id, P, B, D>, 'params'> & { readonly params: P },
): Endpoint<Id, P, B, D> {
  return Object.freeze({ ...e, params: Object.freeze(e.params) });
}

/** 4.1 and 4.5 name their request and browser by an `id` that only the profile can list under `profile-ids`. */
const listed = (l: ListedUnder): { readonly listedUnder: ListedUnder } => ({ listedUnder: Object.freeze(l) });

export const approveDevice = endpoint({
  id: 'approveDevice',
  section: '4.1',
  title: 'Authorize a command-line device',
  method: 'POST',
  pathTemplate: `${API_PREFIX}/cli-auth/requests/{id}/approve`,
  params: { id: uuid({ fresh: 'mint', ...listed({ assumption: 'cli-request-exists', reading: 'profile-ids', list: 'cli-request' }) }) },
  body: obj('approve body', '4.1', {
    statement: Statement,
    welcome: str(),
    key_envelopes: arr(KeyEnvelope),
    confirm_code: optional(str()),
  }),
  data: obj('approve data', '4.1', { device_id: uuid() }),
  signedByDevice: false,
  caller: 'browser',
  environment: 'cli-request-exists',
});

export const commitOperations = endpoint({
  id: 'commitOperations',
  section: '4.2',
  title: 'Commit operations on a pouch',
  method: 'POST',
  pathTemplate: `${API_PREFIX}/pouches/{pouchId}/operations`,
  // Not minted by `freshen`: the runner's listing step gives it a listed or a fresh id.
  params: { pouchId: uuid(listed({ assumption: 'pouch-existence', reading: 'must-exist', list: 'pouch' })) },
  body: obj('commit body', '4.2', {
    operation_id: uuid({ fresh: 'mint' }),
    epoch: uuid(),
    ops: arr(PouchOperation, 'opsPerCommit', { chain: 'op-semantics' }),
  }),
  data: obj('commit data', '4.2', { results: arr(OperationResult) }),
  signedByDevice: true,
  caller: 'device',
  environment: 'pouch-existence',
});

export const reportUsage = endpoint({
  id: 'reportUsage',
  section: '4.3',
  title: 'Report usage per UTC day',
  method: 'PUT',
  pathTemplate: `${API_PREFIX}/usage/sources/{sourceId}`,
  params: { sourceId: str({ length: 'sourceIdLength', charset: 'lowerHex', fresh: 'mint' }) },
  body: obj('usage body', '4.3', { rows: arr(UsageRow, 'usageRowsPerRequest') }),
  data: obj('usage data', '4.3', { stored: int('storedInteger') }),
  signedByDevice: false,
  caller: 'device',
  environment: 'caller-kinds',
});

export const registerPasskey = endpoint({
  id: 'registerPasskey',
  section: '4.4',
  title: 'Register a passkey unlocker',
  method: 'POST',
  pathTemplate: `${API_PREFIX}/account/passkeys`,
  params: {},
  body: obj('passkey body', '4.4', {
    response: anyObject('response', '4.4'),
    label: optional(str()),
    statement: Statement,
    key_envelopes: optional(arr(KeyEnvelope)),
  }),
  data: anyObject('passkey data', '4.4'),
  signedByDevice: false,
  caller: 'browser',
  environment: 'opaque-crypto-fields',
});

export const revokeBrowser = endpoint({
  id: 'revokeBrowser',
  section: '4.5',
  title: 'Revoke a browser member',
  method: 'POST',
  pathTemplate: `${API_PREFIX}/browsers/{id}/revoke`,
  params: { id: uuid({ fresh: 'mint', ...listed({ assumption: 'browser-exists', reading: 'profile-ids', list: 'browser' }) }) },
  body: obj('revoke body', '4.5', {
    roster: optional(Roster),
    reason: optional(str({ length: 'reasonLength' })),
  }),
  data: obj('revoke data', '4.5', { revoked: bool(), rotation_pending: bool() }),
  signedByDevice: false,
  caller: 'browser',
  environment: 'browser-exists',
});

export const changeUnlock = endpoint({
  id: 'changeUnlock',
  section: '4.6',
  title: 'Change the master password',
  method: 'PUT',
  pathTemplate: `${API_PREFIX}/account/unlock`,
  params: {},
  body: obj('unlock body', '4.6', {
    statements: arr(Statement),
    key_envelopes: optional(arr(KeyEnvelope)),
  }),
  data: obj('unlock data', '4.6', { head_seq: int() }),
  signedByDevice: false,
  caller: 'browser',
  environment: 'unlock-prepare',
});

/** The catalogue by id. A new endpoint must be listed here (the type demands every `EndpointId`). */
export const ENDPOINT_BY_ID = Object.freeze({
  approveDevice,
  commitOperations,
  reportUsage,
  registerPasskey,
  revokeBrowser,
  changeUnlock,
} as const satisfies { readonly [Id in EndpointId]: Endpoint<Id> });

/** Every endpoint, in catalogue (section) order. */
export const ENDPOINTS: readonly Endpoint[] = Object.freeze(Object.values(ENDPOINT_BY_ID));

/** The catalogue entry of one endpoint, with its literal types. */
export type EndpointOf<Id extends EndpointId> = (typeof ENDPOINT_BY_ID)[Id];

type ParamsOf<E> = E extends Endpoint<EndpointId, infer P extends ParamNodes, ObjectNode, ObjectNode> ? P : never;

/** The path parameters of an endpoint's request, by name: `EndpointParams<'commitOperations'>` is `{ pouchId: string }`. */
export type EndpointParams<Id extends EndpointId> = InferParams<ParamsOf<EndpointOf<Id>>>;
type InferParams<P extends ParamNodes> = { -readonly [K in keyof P]: Infer<P[K]> };
/** A valid request body of an endpoint. */
export type EndpointBody<Id extends EndpointId> = Infer<EndpointOf<Id>['body']>;
/** The `data` of an endpoint's success envelope. */
export type EndpointData<Id extends EndpointId> = Infer<EndpointOf<Id>['data']>;

/** 4.1 request body. */
export type ApproveBody = EndpointBody<'approveDevice'>;
/** 4.2 request body: `operation_id`, `epoch` and 1 to 50 `ops`. */
export type CommitBody = EndpointBody<'commitOperations'>;
/** 4.2 success `data`: one result per applied op. */
export type CommitData = EndpointData<'commitOperations'>;
/** 4.3 request body: `rows`. */
export type UsageBody = EndpointBody<'reportUsage'>;
/** 4.3 success `data`: `stored`. */
export type UsageData = EndpointData<'reportUsage'>;
/** 4.4 request body. */
export type PasskeyBody = EndpointBody<'registerPasskey'>;
/** 4.5 request body. */
export type RevokeBody = EndpointBody<'revokeBrowser'>;
/** 4.5 success `data`. */
export type RevokeData = EndpointData<'revokeBrowser'>;
/** 4.6 request body. */
export type UnlockBody = EndpointBody<'changeUnlock'>;
/** 4.6 success `data`: `head_seq`. */
export type UnlockData = EndpointData<'changeUnlock'>;

/** The path parameters of an endpoint that name listed things, with the reading under which they must be listed. */
export function listedParams(e: Endpoint): { readonly name: string; readonly listedUnder: ListedUnder }[] {
  const out: { name: string; listedUnder: ListedUnder }[] = [];
  for (const [name, node] of Object.entries(e.params)) if (node.kind === 'uuid' && node.listedUnder) out.push({ name, listedUnder: node.listedUnder });
  return out;
}

/** Names of a template's `{placeholders}`, in order. */
export function pathParamNames(e: Endpoint): string[] {
  return [...e.pathTemplate.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
}

/** Fills a path template. Values are percent-encoded so a hostile value cannot escape its segment. */
export function buildPath(e: Endpoint, params: Readonly<Record<string, string>>): string {
  return e.pathTemplate.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`missing path parameter ${name} for ${e.id}`);
    return encodeURIComponent(v);
  });
}

/** Each endpoint's path template as a regular expression, compiled once. */
const PATH_MATCHERS: ReadonlyArray<{ endpoint: Endpoint; names: string[]; re: RegExp }> = ENDPOINTS.map((e) => ({
  endpoint: e,
  names: pathParamNames(e),
  re: new RegExp('^' + e.pathTemplate.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{(\w+)\\?\}/g, '([^/]*)') + '$'),
}));

/**
 * Matches a request path against the catalogue: the endpoint and its raw (decoded) parameters,
 * or undefined. Used by the reference server's router and by replay.
 */
export function matchPath(method: string, path: string): { endpoint: Endpoint; params: Record<string, string> } | undefined {
  for (const { endpoint, names, re } of PATH_MATCHERS) {
    if (endpoint.method !== method) continue;
    const m = re.exec(path);
    if (!m) continue;
    const params: Record<string, string> = {};
    try {
      for (const [i, n] of names.entries()) params[n] = decodeURIComponent(m[i + 1]);
    } catch {
      for (const [i, n] of names.entries()) params[n] = m[i + 1];
    }
    return { endpoint, params };
  }
  return undefined;
}
