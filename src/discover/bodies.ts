/**
 * Probes of how bodies are read (section 2, the introduction, section 7), each a plain usage report
 * on a fresh source that differs in one thing: an empty list, a member the spec does not list, a
 * duplicate key, another Content-Type, a body that must be refused (to see what a refusal looks
 * like). A plain usage report is known to be accepted before they run.
 */
import { DEFAULT_ASSUMPTIONS } from '../spec/index.ts';
import { commitOutcome } from '../check/judge/commit-outcome.ts';
import { isRecord } from '../check/judge/judge.ts';
import { commit, op, signerId, usageRow } from './build.ts';
import type { CommitBase } from './commit-base.ts';
import { answerOf, type Answer, type Scope } from './env.ts';
import { decide, unknown, verdict, type ProbeResult } from './result.ts';

function usage(scope: Scope, what: string, o: { body?: unknown; rawBody?: string; headers?: Record<string, string | undefined> }) {
  return scope.send(what, { endpoint: 'reportUsage', params: { sourceId: scope.env.sourceId() }, ...o });
}

/** empty-lists: `rows: []`, and (when commits can be made) an op with `blob_ids: []`. 1-2 requests. */
export async function probeEmptyLists(scope: Scope, base: CommitBase | undefined): Promise<ProbeResult[]> {
  const rows = answerOf(await usage(scope, 'a usage report with rows: []', { body: { rows: [] } }));
  if (!base) return [verdict(scope.evidence, 'empty-lists', rows, 'accepted', 'rejected')];
  const env = scope.env;
  const ops = [op('create', env.uuid(), env.uuid(), null, signerId(env), { blob_ids: [] })];
  const f = commitOutcome(await commit(scope, 'a create with blob_ids: []', base.pouch(), ops, base), ops, DEFAULT_ASSUMPTIONS).batch;
  const blobs: Answer = f === 'applied' ? 'accepted' : f === 'refused' ? 'refused' : 'inconclusive';
  if (rows === 'inconclusive' || blobs === 'inconclusive') return [unknown('empty-lists', 'answered with a 5xx, no answer or a broken envelope', scope.evidence)];
  if (rows !== blobs) return [unknown('empty-lists', `an empty list is ${rows} in rows but ${blobs} in blob_ids`, scope.evidence)];
  return [verdict(scope.evidence, 'empty-lists', rows, 'accepted', 'rejected')];
}

/** unknown-fields-ignored: a plain report with one member more. 1 request. */
export async function probeUnknownFields(scope: Scope): Promise<ProbeResult[]> {
  const a = answerOf(await usage(scope, 'a usage report with a member the spec does not list (pouchproof_probe)', { body: { rows: [usageRow()], pouchproof_probe: true } }));
  return [verdict(scope.evidence, 'unknown-fields-ignored', a, 'ignored', 'rejected')];
}

/** duplicate-keys: `{"rows":[…],"rows":[…]}`, both valid. 1 request. */
export async function probeDuplicateKeys(scope: Scope): Promise<ProbeResult[]> {
  const row = JSON.stringify(usageRow());
  const a = answerOf(await usage(scope, 'a usage report naming rows twice', { rawBody: `{"rows":[${row}],"rows":[${row}]}` }));
  return [verdict(scope.evidence, 'duplicate-keys', a, 'last-wins', 'rejected')];
}

/** content-type-json-only: a plain report sent as text/plain. 1 request. */
export async function probeContentType(scope: Scope): Promise<ProbeResult[]> {
  const a = answerOf(await usage(scope, 'a plain usage report sent as Content-Type: text/plain', { body: { rows: [usageRow()] }, headers: { 'content-type': 'text/plain' } }));
  return [verdict(scope.evidence, 'content-type-json-only', a, 'sniffed', 'rejected')];
}

/**
 * error-response: a report whose rows is not a list, which every reading refuses; its body is an
 * envelope with ok false under a 4xx (any-4xx, which envelope-ok-false only narrows), or under a 2xx
 * (only ok-false-any-status answers a refusal so), or not an envelope (only any-4xx). 1 request.
 */
export async function probeErrorResponse(scope: Scope): Promise<ProbeResult[]> {
  const ex = await usage(scope, 'a usage report whose rows is a string (must be refused)', { body: { rows: 'not a list' } });
  const a = answerOf(ex);
  if (a === 'inconclusive') return [unknown('error-response', 'answered with a 5xx, no answer or a broken envelope', scope.evidence)];
  if (a === 'accepted') return [unknown('error-response', 'a body whose rows is not a list was accepted: no refusal to read', scope.evidence)];
  const json = ex.response?.json;
  const envelope = isRecord(json) && json.ok === false;
  // an answer was classified above, so the exchange has a response
  const status = ex.response!.status;
  // A refusal under a 2xx is told apart by its status alone: only ok-false-any-status answers one.
  if (status < 400) return [decide('error-response', ['ok-false-any-status'], scope.evidence, `a ${status} with an envelope, ok false`)];
  return [decide('error-response', envelope ? ['any-4xx', 'envelope-ok-false'] : ['any-4xx'], scope.evidence, envelope ? 'a 4xx with an envelope, ok false' : `a ${status} without an ok-false envelope`)];
}
