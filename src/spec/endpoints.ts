/**
 * Section 4: the six endpoints. Each entry says everything the rest of pouchproof needs to build a
 * request and judge its answer: method, path template and its parameters, body, success `data`,
 * whether `Service-Signature` applies (section 5), and the member kind that normally calls it.
 */
import { API_PREFIX } from './limits.ts';
import { anyObject, arr, bool, int, obj, optional, str, uuid, type Node, type ObjectNode } from './model.ts';
import { KeyEnvelope, OperationResult, PouchOperation, Roster, Statement, UsageRow } from './resources.ts';

/** Who calls an endpoint (assumption `caller-kinds`): credentials come from the profile per kind. */
export type MemberKind = 'browser' | 'device';

/** Section 5's header, as HTTP field names are compared: in lower case. */
export const SIGNATURE_HEADER = 'service-signature';

export type EndpointId = 'approveDevice' | 'commitOperations' | 'reportUsage' | 'registerPasskey' | 'revokeBrowser' | 'changeUnlock';

export interface Endpoint {
  readonly id: EndpointId;
  readonly section: string;
  readonly title: string;
  readonly method: 'POST' | 'PUT';
  /** Relative to {base_url}, with `{name}` placeholders; begins with the `/v1` prefix (section 9). */
  readonly pathTemplate: string;
  readonly params: Readonly<Record<string, Node>>;
  readonly body: ObjectNode;
  readonly data: ObjectNode;
  /** Section 5: command-line devices must send `Service-Signature` on this endpoint. */
  readonly signedByDevice: boolean;
  readonly caller: MemberKind;
}

const endpoint = (e: Endpoint): Endpoint => Object.freeze(e);

export const approveDevice = endpoint({
  id: 'approveDevice',
  section: '4.1',
  title: 'Authorize a command-line device',
  method: 'POST',
  pathTemplate: `${API_PREFIX}/cli-auth/requests/{id}/approve`,
  params: { id: uuid() },
  body: obj('approve body', '4.1', {
    statement: Statement,
    welcome: str(),
    key_envelopes: arr(KeyEnvelope),
    confirm_code: optional(str()),
  }),
  data: obj('approve data', '4.1', { device_id: uuid() }),
  signedByDevice: false,
  caller: 'browser',
});

export const commitOperations = endpoint({
  id: 'commitOperations',
  section: '4.2',
  title: 'Commit operations on a pouch',
  method: 'POST',
  pathTemplate: `${API_PREFIX}/pouches/{pouchId}/operations`,
  params: { pouchId: uuid() },
  body: obj('commit body', '4.2', {
    operation_id: uuid(),
    epoch: uuid(),
    ops: arr(PouchOperation, 'opsPerCommit'),
  }),
  data: obj('commit data', '4.2', { results: arr(OperationResult) }),
  signedByDevice: true,
  caller: 'device',
});

export const reportUsage = endpoint({
  id: 'reportUsage',
  section: '4.3',
  title: 'Report usage per UTC day',
  method: 'PUT',
  pathTemplate: `${API_PREFIX}/usage/sources/{sourceId}`,
  params: { sourceId: str({ length: 'sourceIdLength', charset: 'lowerHex' }) },
  body: obj('usage body', '4.3', { rows: arr(UsageRow, 'usageRowsPerRequest') }),
  data: obj('usage data', '4.3', { stored: int('storedInteger') }),
  signedByDevice: false,
  caller: 'device',
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
});

export const revokeBrowser = endpoint({
  id: 'revokeBrowser',
  section: '4.5',
  title: 'Revoke a browser member',
  method: 'POST',
  pathTemplate: `${API_PREFIX}/browsers/{id}/revoke`,
  params: { id: uuid() },
  body: obj('revoke body', '4.5', {
    roster: optional(Roster),
    reason: optional(str({ length: 'reasonLength' })),
  }),
  data: obj('revoke data', '4.5', { revoked: bool(), rotation_pending: bool() }),
  signedByDevice: false,
  caller: 'browser',
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
});

export const ENDPOINTS: readonly Endpoint[] = Object.freeze([
  approveDevice,
  commitOperations,
  reportUsage,
  registerPasskey,
  revokeBrowser,
  changeUnlock,
]);

export const ENDPOINT_BY_ID: Readonly<Record<EndpointId, Endpoint>> = Object.freeze(
  Object.fromEntries(ENDPOINTS.map((e) => [e.id, e])) as Record<EndpointId, Endpoint>,
);

/** Names of a template's `{placeholders}`, in order. */
export function pathParamNames(e: Endpoint): string[] {
  return [...e.pathTemplate.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
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
      names.forEach((n, i) => (params[n] = decodeURIComponent(m[i + 1]!)));
    } catch {
      names.forEach((n, i) => (params[n] = m[i + 1]!));
    }
    return { endpoint, params };
  }
  return undefined;
}
