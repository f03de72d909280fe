/**
 * Every success a case got answers its endpoint's response schema (2.1, the data of 4.x), whatever
 * the property made of the answer. A property reads what it needs of a success (a commit law reads
 * only each op's fate: commit-outcome.ts), so without this a 2xx that broke the schema only where a
 * law looked (a conflict answered with per-op results lacking their seq) was judged by nobody.
 *
 * A success is a complete JSON answer with a 2xx status whose envelope says `ok: true`: the server
 * claims it, and no reading lets a claimed success take another shape. The one value a reading opens
 * is an enum whose other values are not shown (2.6's result status, section 7: `conflict-behaviour`),
 * which the inventory marks with its reading; such an issue is left to the properties that judge
 * that reading.
 */
import { ENDPOINT_BY_ID, INVENTORY, isRecord, type SchemaIssue } from '../../spec/index.ts';
import type { Exchange } from '../../target/client.ts';
import { describeResponse, requestLine, violation } from './judge.ts';
import { SUCCESS_ENVELOPE } from './judgements.ts';
import type { Outcome } from '../property.ts';

/** Response rules that hold only under a reading, by endpoint, template path and kind. */
const UNDER_A_READING = new Set(INVENTORY.filter((c) => c.scope === 'response' && c.assumption !== undefined).map((c) => `${c.endpoint} ${c.path} ${c.kind}`));

/**
 * How a claimed success breaks its endpoint's response schema, by rules no reading opens; empty when
 * it does not, or is no claimed success. The issues are the ones the client found when it classified
 * the answer (classify.ts), kept on the exchange as data: it finds them only in a complete 2xx JSON
 * answer that is no refusal, so what is left to ask here is whether the answer claims a success.
 */
export function successIssues(ex: Exchange): readonly SchemaIssue[] {
  const json = ex.response?.json;
  if (!ex.schemaIssues || !isRecord(json) || json['ok'] !== true) return [];
  return ex.schemaIssues.filter((i) => !UNDER_A_READING.has(`${ex.endpoint} ${i.path} ${i.kind}`));
}

/** Where a schema broke, as a message names it: the first four issues by path and kind. */
export function issuesAt(issues: readonly SchemaIssue[]): string {
  return issues
    .slice(0, 4)
    .map((i) => `${i.path || '(body)'} (${i.kind})`)
    .join(', ');
}

/** A violation for the first success of `exchanges` that breaks its schema, or undefined. */
export function brokenSuccess(exchanges: readonly Exchange[]): Outcome | undefined {
  for (const ex of exchanges) {
    const issues = successIssues(ex);
    if (issues.length === 0) continue;
    const at = issuesAt(issues);
    const section = ENDPOINT_BY_ID[ex.endpoint].section;
    return violation(SUCCESS_ENVELOPE, `${requestLine(ex)} answered ${describeResponse(ex)}: a success (ok true) that breaks the envelope (2.1) or the ${section} response fields at ${at}`, { exchangeIds: [ex.id] });
  }
  return undefined;
}
