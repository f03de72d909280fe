/**
 * The one place that answers "was this op applied, refused, or is its fate unknown?" for a commit
 * (4.2), under every reading the registry allows for how a refusal looks: a whole-batch 4xx of any
 * code (`conflict-behaviour=reject-request`, `conflict-status`), or a 2xx whose result for the op
 * has a status other than `applied` (`conflict-behaviour=per-op-status`). A timeout or a 5xx is
 * unknown (Jepsen's indeterminate), never a loss. Results are matched to ops by the ids they name,
 * so their order does not matter. Properties ask this instead of reading status codes.
 */
import type { AssumptionSet } from '../../spec/index.ts';
import { resentAfterNoAnswer, type Exchange } from '../../target/client.ts';
import { assumptionMismatch, dataOf, describeResponse, isRecord } from './judge.ts';
import { PASS, type Outcome } from '../property.ts';

export type OpFate = 'applied' | 'refused' | 'unknown';
export type BatchFate = 'applied' | 'refused' | 'partial' | 'unknown';

/** What a commit op is identified by. */
export interface OpIds {
  readonly artifact_id: unknown;
  readonly revision_id: unknown;
}

export interface CommitOutcome {
  readonly ops: readonly OpFate[];
  readonly batch: BatchFate;
  /** How the answer refused, for messages. */
  readonly answer: string;
  /** A 2xx whose results could not be read (missing, malformed, or naming no op sent). */
  readonly unreadable: boolean;
  /**
   * For an answer that refused ops: PASS when it refused them in the form the run's readings expect,
   * else the assumption finding naming the reading it follows instead (`conflict-behaviour` or
   * `conflict-status`). Meaningful only where the refusal is a conflict.
   */
  readonly conflictForm: Outcome;
}

const key = (artifact: unknown, revision: unknown): string => `${String(artifact).toLowerCase()} ${String(revision).toLowerCase()}`;

function batchOf(ops: readonly OpFate[]): BatchFate {
  if (ops.length === 0 || ops.some((f) => f === 'unknown')) return ops.some((f) => f === 'applied') && ops.some((f) => f === 'refused') ? 'partial' : 'unknown';
  if (ops.every((f) => f === 'applied')) return 'applied';
  if (ops.every((f) => f === 'refused')) return 'refused';
  return 'partial';
}

export function commitOutcome(ex: Exchange, ops: readonly OpIds[], readings: AssumptionSet): CommitOutcome {
  const unknown = (unreadable: boolean): CommitOutcome => ({ ops: ops.map(() => 'unknown'), batch: 'unknown', answer: describeResponse(ex), unreadable, conflictForm: PASS });
  const status = ex.response?.status;
  if (status === undefined || status >= 500 || ex.verdict === 'transport-error') return unknown(false);
  // A copy sent again after no answer (the nemesis) that is refused may be refused because the first
  // copy applied (operation-id-idempotency=replay-rejected, not-deduplicated): indeterminate, as Jepsen's :info.
  if (resentAfterNoAnswer(ex) && refuses(ex, status, ops)) return unknown(false);
  // Section 7: an envelope with ok false is no success, whatever its status: the whole request was refused.
  // The form of a refusal is read only by a caller that knows the refusal is a conflict (a getter): a
  // forgery refused reads no conflict reading, so an unidentified one leaves its verdict alone.
  if (status < 400 && ex.verdict === 'rejected') {
    return { ops: ops.map(() => 'refused'), batch: ops.length ? 'refused' : 'unknown', answer: describeResponse(ex), unreadable: false, get conflictForm() { return okFalseForm(status, readings, ex); } };
  }
  if (status >= 400) {
    // Under batch-atomicity=per-op a refused request may still have applied its valid ops: only
    // results the answer lists, or a single op, say which; the rest are unknown. A single op's fate
    // reads no reading.
    const perOp = ops.length > 1 && readings['batch-atomicity'] === 'per-op';
    const listed = perOp ? statusesIn(ex, ops) : undefined;
    const fates = ops.map((_, i): OpFate => {
      if (!perOp) return 'refused';
      const s = listed?.[i];
      return s === undefined ? 'unknown' : s === 'applied' ? 'applied' : 'refused';
    });
    return { ops: fates, batch: batchOf(fates), answer: describeResponse(ex), unreadable: false, get conflictForm() { return refusalForm(status, readings, ex); } };
  }
  if (status < 200 || status >= 300) return unknown(false);
  const statuses = statusesIn(ex, ops);
  if (!statuses) return unknown(true);
  const fates = statuses.map((s): OpFate => (s === undefined ? 'unknown' : s === 'applied' ? 'applied' : 'refused'));
  const refusedInBody = fates.some((f) => f === 'refused');
  const conflictForm =
    refusedInBody && readings['conflict-behaviour'] !== 'per-op-status'
      ? assumptionMismatch('conflict-behaviour', `answered ${describeResponse(ex)}: a 2xx whose results mark ops as not applied, instead of a 4xx`)
      : PASS;
  return { ops: fates, batch: batchOf(fates), answer: describeResponse(ex), unreadable: statuses.every((s) => s === undefined), conflictForm };
}

/** Whether the answer refuses some op: a 4xx, ok false, or a 2xx result other than applied. */
function refuses(ex: Exchange, status: number, ops: readonly OpIds[]): boolean {
  if (status >= 400 || ex.verdict === 'rejected') return true;
  return statusesIn(ex, ops)?.some((s) => s !== undefined && s !== 'applied') ?? false;
}

/**
 * Each op's result, matched by the artifact and revision ids it names (in order when it names none of
 * the ops and counts them all); undefined where the answer has no results array.
 */
export function resultsFor(ex: Exchange, ops: readonly OpIds[]): (Record<string, unknown> | undefined)[] | undefined {
  const results = dataOf(ex)?.['results'];
  if (!Array.isArray(results)) return undefined;
  const byIds = new Map<string, Record<string, unknown>>();
  for (const r of results) if (isRecord(r)) byIds.set(key(r['artifact_id'], r['revision_id']), r);
  const matched = ops.map((o) => byIds.get(key(o.artifact_id, o.revision_id)));
  return matched.every((m) => m === undefined) && results.length === ops.length ? results.map((r) => (isRecord(r) ? r : undefined)) : matched;
}

function statusesIn(ex: Exchange, ops: readonly OpIds[]): unknown[] | undefined {
  return resultsFor(ex, ops)?.map((r) => r?.['status']);
}

/** A refusal answered with a 2xx and ok false: the form `error-response=ok-false-any-status` reads; under any other reading, a refusal comes as a 4xx. */
function okFalseForm(status: number, readings: AssumptionSet, ex: Exchange): Outcome {
  if (readings['error-response'] === 'ok-false-any-status') return PASS;
  return assumptionMismatch('error-response', `answered ${describeResponse(ex)}: a refusal with ${status} and ok false instead of a 4xx`);
}

function refusalForm(status: number, readings: AssumptionSet, ex: Exchange): Outcome {
  if (readings['conflict-behaviour'] === 'per-op-status') {
    return assumptionMismatch('conflict-behaviour', `answered ${describeResponse(ex)}: a 4xx for the whole request instead of a 2xx with per-op statuses`);
  }
  const want = readings['conflict-status'];
  if (want !== 'any-4xx' && String(status) !== want) return assumptionMismatch('conflict-status', `a conflict answered HTTP ${status} instead of ${want}`);
  return PASS;
}
