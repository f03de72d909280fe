/**
 * Turning built bodies into requests for the profile's identities, and judging the answers. Shared
 * by every scenario; paths and methods come from the endpoint catalogue.
 */
import { RESULT_STATUSES, SIGNATURE_HEADER, buildPath, commitOperations, errorCode, isRecord, parseJson, reportUsage, type EndpointData, type EndpointId, type MemberKind } from '../spec/index.ts';
import { pouchPlan } from '../target/pouches.ts';
import type { Identity, Profile } from '../target/profile.ts';
import { deviceSigner, type BodySigner } from '../target/signing.ts';
import type { BuiltCommit } from './bodies.ts';
import type { Rng } from './rng.ts';
import { AbandonedError, ConnectionSetupError } from './http1/sender.ts';
import type { LoadRequest, LoadResponse, RequestOutcome } from './scenario.ts';

const APPLIED = RESULT_STATUSES[0];

export interface Caller {
  readonly identity: Identity;
  readonly memberId: string;
  readonly signer?: BodySigner;
  readonly headers: Readonly<Record<string, string>>;
}

/** The primary account's member of `kind`; devices sign (section 5). Throws a one-line Error if the profile lacks it. */
export function callerOf(profile: Profile, kind: MemberKind, fallbackMemberId: string): Caller {
  const identity = profile.accounts.primary[kind];
  if (!identity) throw new Error(`the profile has no primary ${kind} identity; a load run needs one`);
  let signer: BodySigner | undefined;
  if (kind === 'device') {
    if (!identity.privateKey || !identity.deviceId) throw new Error('the profile\'s primary device needs deviceId and privateJwk to sign commits');
    signer = deviceSigner(identity, commitOperations, profile.assumptions);
  }
  return {
    identity,
    memberId: identity.memberId ?? fallbackMemberId,
    signer,
    headers: { ...identity.headers, 'content-type': 'application/json' },
  };
}

/** Pouches for a run: `n` fresh ones, or every listed one (pouchPlan); a run that may commit to none is refused with the reason. */
export function pouchesFor(profile: Profile, rng: Rng, n: number): string[] {
  const plan = pouchPlan(profile);
  switch (plan.kind) {
    case 'fresh':
      return Array.from({ length: n }, () => rng.uuid());
    case 'listed':
      return [...plan.ids];
    case 'unavailable':
      throw new Error(plan.reason);
    default:
      return plan satisfies never;
  }
}

/** Commit paths by pouch: a run commits to a handful of pouches, and building a path is not free. */
const commitPaths = new Map<string, string>();

function commitPath(pouchId: string): string {
  let p = commitPaths.get(pouchId);
  if (p === undefined) {
    p = buildPath(commitOperations, { pouchId });
    if (commitPaths.size < 10_000) commitPaths.set(pouchId, p);
  }
  return p;
}

export function commitRequest(caller: Caller, built: BuiltCommit, kind: string): LoadRequest {
  const headers = built.signature ? { ...caller.headers, [SIGNATURE_HEADER]: built.signature } : caller.headers;
  return { method: commitOperations.method, path: commitPath(built.pouchId), headers, body: built.body, kind, token: built };
}

export function usageRequest(caller: Caller, sourceId: string, body: string, kind: string, token?: unknown): LoadRequest {
  return { method: reportUsage.method, path: buildPath(reportUsage, { sourceId }), headers: caller.headers, body, kind, token };
}

/** A parsed value not checked yet (the hot path does not validate): the model's field names, any values. */
type Unchecked<T> = { readonly [K in keyof T]?: unknown };
type UncheckedEnvelope<Id extends EndpointId> = { readonly ok?: unknown; readonly data?: Unchecked<EndpointData<Id>> };

function envelope<Id extends EndpointId>(res: LoadResponse): UncheckedEnvelope<Id> | undefined {
  try {
    const j = parseJson(res.body);
    return j && typeof j === 'object' ? (j) : undefined;
  } catch {
    return undefined;
  }
}

/** Transport errors, timeouts, responses the engine abandoned and 5xx: the server failed to serve, as opposed to refusing. */
export function failureOf(res: LoadResponse | Error): RequestOutcome | undefined {
  if (res instanceof AbandonedError) return { ok: false, units: 0, reason: res.reason, error: true };
  if (res instanceof ConnectionSetupError) return { ok: false, units: 0, reason: `transport: ${res.message}`, error: true };
  if (res instanceof Error) {
    const code = errorCode(res) ?? '';
    const why = /timeout/i.test(code) || /timeout/i.test(res.name) ? 'timeout' : `transport: ${code || res.message.slice(0, 60)}`;
    return { ok: false, units: 0, reason: why, error: true };
  }
  if (res.status >= 500) return { ok: false, units: 0, reason: `http ${res.status}`, error: true };
  return undefined;
}

/** A 2xx answer, or the outcome of any other: a failure (failureOf) or a refusal. */
function success(res: LoadResponse | Error): LoadResponse | RequestOutcome {
  const failed = failureOf(res);
  if (failed) return failed;
  if (res instanceof Error) throw new Error(`pouchproof: failureOf judges every error, yet not ${res.name}`);
  const r = res;
  if (r.status < 200 || r.status > 299) return { ok: false, units: 0, reason: `http ${r.status}` };
  return r;
}

/** A commit applied only if it is a 2xx envelope whose results are all `applied`, one per op. */
export function judgeCommit(res: LoadResponse | Error, ops: number): RequestOutcome {
  const r = success(res);
  if ('ok' in r) return r;
  const env = envelope<'commitOperations'>(r);
  const results = env?.data?.results;
  if (env?.ok !== true || !Array.isArray(results)) return { ok: false, units: 0, reason: 'malformed success response', error: true };
  // The array comes from the parsed JSON: each result is read as unknown and checked.
  const unchecked: readonly unknown[] = results;
  const notApplied = unchecked.find((x) => !isRecord(x) || x['status'] !== APPLIED);
  if (notApplied) return { ok: false, units: 0, reason: `not applied: ${String(isRecord(notApplied) ? notApplied['status'] : undefined)}` };
  if (results.length !== ops) return { ok: false, units: 0, reason: `results for ${results.length} of ${ops} ops`, error: true };
  return { ok: true, units: ops };
}

/** A usage report accepted: a 2xx envelope with integer data.stored. */
export function judgeUsage(res: LoadResponse | Error, rows: number): RequestOutcome & { stored?: number } {
  const r = success(res);
  if ('ok' in r) return r;
  const env = envelope<'reportUsage'>(r);
  const stored = env?.data?.stored;
  if (env?.ok !== true || typeof stored !== 'number') return { ok: false, units: 0, reason: 'malformed success response', error: true };
  return { ok: true, units: rows, stored };
}
