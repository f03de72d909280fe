/**
 * 4.3 Report usage. A row is keyed within the caller's account and source by the fields
 * `usage-row-key` names; the merge is the spec model's (`mergeUsageRow`): a reported row replaces
 * the held one only when its total is strictly larger (rows are never added up, and re-sending
 * changes nothing), and the whole row is kept, never counter by counter. `stored` counts what
 * `usage-stored-meaning` says: the rows this request inserted or raised (default), the rows held
 * for the source after it, or the rows of the request.
 */
import { LIMITS, MAX_SAFE, isRecord, USAGE_COUNTERS, USAGE_KEY_FIELDS_BY_READING, mergeUsageRow, usageKey, usageTotal, type EndpointBody, type UsageRowValue } from '../../spec/index.ts';
import { dataOut, type Handler, type RequestContext } from '../context.ts';
import { badRequest } from '../errors.ts';
import type { FaultSet } from '../faults.ts';
import type { ReadingSet } from '../readings.ts';
import { storeRoundTrip } from './round-trip.ts';

type Row = Readonly<UsageRowValue>;

/** `n` within a limit's bounds. */
const clamped = (n: bigint, l: { readonly min?: number; readonly max?: number }): bigint =>
  l.max !== undefined && n > BigInt(l.max) ? BigInt(l.max) : l.min !== undefined && n < BigInt(l.min) ? BigInt(l.min) : n;

/** Tokens each source holds, summed over its rows (`stored-tokens-held`), per store. */
const tokensHeld = new WeakMap<object, Map<string, bigint>>();

/** The source's tokens once the staged rows are written (called before they are). */
function countTokens(store: Parameters<Handler<'reportUsage'>>[0]['store'], scope: string, staged: Iterable<[string, Row]>): bigint {
  const tokens = tokensHeld.get(store) ?? new Map<string, bigint>();
  tokensHeld.set(store, tokens);
  let held = tokens.get(scope) ?? 0n;
  for (const [key, row] of staged) {
    const before = store.usageRow(scope, key);
    held += usageTotal(row) - (before ? usageTotal(before) : 0n);
  }
  tokens.set(scope, held);
  return held;
}

/** Reports stored so far across every source (`stored-sequence`: the number this report was stored under), per store. */
const reportsStored = new WeakMap<object, number>();

/** Reports each source has sent (`stored-reports`), per store. */
const reportsSent = new WeakMap<object, Map<string, number>>();

function storedOf(readings: ReadingSet, changed: number, held: number, reported: number): number {
  const meaning = readings.of('usage-stored-meaning');
  switch (meaning) {
    case 'rows-changed':
      return changed;
    case 'rows-held':
      return held;
    case 'rows-accepted':
      return reported;
    default:
      return meaning satisfies never;
  }
}

// Stryker disable all: the usage faults' arithmetic only (docs/mutation.md)
const sameCounters = (a: Row, b: Row): boolean => USAGE_COUNTERS.every((c) => a[c] === b[c]);

/** `usage-total-double`: the row's total as a JavaScript number, rounded past 2^53. */
const doubleTotal = (r: Row): number => r.input + r.output + r.cache_read + r.cache_write;

// Stryker restore all

/** The merge of a held row and a reported one: the spec model's, or the arithmetic of the usage faults. */
function keepsReported(held: Row, reported: Row, faults: FaultSet): boolean {
  if (faults.has('usage-total-double')) return doubleTotal(reported) > doubleTotal(held);
  // `usage-merge-total-bounded`: the totals are checked as safe integers only where two are compared.
  // Stryker disable next-line all: the usage-merge-total-bounded fault only
  if (faults.has('usage-merge-total-bounded') && [held, reported].some((r) => usageTotal(r) > BigInt(MAX_SAFE))) throw badRequest('invalid_body', `rows: a total past ${MAX_SAFE}`);
  return mergeUsageRow(held, reported).changed;
}

/** The rows of one request merged so far, by key. */
interface Staged extends Iterable<[string, Row]> {
  get(key: string, row: Row): Row | undefined;
  set(key: string, row: Row): void;
}

/**
 * `quadratic-usage-rows`: the request's rows kept in a list, and each row's earlier copy found by
 * building the key of every row before it (`rows.findIndex((r) => keyOf(r) === key)`): O(n²) in the
 * rows of one report. The write that follows a lookup reuses its index.
 */
// Stryker disable all: runs only under the quadratic-usage-rows fault (docs/mutation.md)
class ListedRows implements Staged {
  private readonly rows: { readonly key: string; row: Row }[] = [];
  private last: { key: string; at: number } | undefined;
  constructor(private readonly fields: readonly (keyof Row)[]) {}
  private keyOf(r: Row): string {
    let k = '';
    for (const f of this.fields) k += `${r[f]}\n`;
    return k;
  }
  private indexOf(key: string, row: Row): number {
    if (this.last?.key === key) return this.last.at;
    const own = this.keyOf(row);
    const at = this.rows.findIndex((r) => this.keyOf(r.row) === own);
    this.last = { key, at };
    return at;
  }
  get(key: string, row: Row): Row | undefined {
    const i = this.indexOf(key, row);
    return i < 0 ? undefined : this.rows[i].row;
  }
  set(key: string, row: Row): void {
    const i = this.indexOf(key, row);
    if (i >= 0) this.rows[i].row = row;
    else this.rows.push({ key, row });
    this.last = undefined;
  }
  *[Symbol.iterator](): Iterator<[string, Row]> {
    for (const { key, row } of this.rows) yield [key, row];
  }
}
// Stryker restore all

/** `usage-dedup-by-connection`: the connection that last applied each body, per store. */
const appliedBy = new WeakMap<object, Map<string, { readonly destroyed: boolean }>>();

/**
 * `usage-dedup-by-connection`: whether this body was applied before on a connection that has since
 * closed; the cache went with it, and the body is taken for new usage (added up).
 */
function retriedAfterHangUp(ctx: Parameters<Handler<'reportUsage'>>[0], scope: string): boolean {
  if (!ctx.faults.has('usage-dedup-by-connection') || !ctx.connection) return false;
  const by = appliedBy.get(ctx.store) ?? new Map<string, { readonly destroyed: boolean }>();
  appliedBy.set(ctx.store, by);
  const key = `${scope}\n${Buffer.from(ctx.rawBody).toString('utf8')}`;
  const before = by.get(key);
  by.set(key, ctx.connection);
  return before !== undefined && before !== ctx.connection && before.destroyed;
}

export const reportUsage: Handler<'reportUsage'> = async (ctx) => {
  const { faults, readings, store } = ctx;
  const rows = ctx.body.rows;
  const scope = `${ctx.caller.accountId}\n${ctx.params.sourceId}`;
  const summed = faults.has('usage-summed') || retriedAfterHangUp(ctx, scope);
  const keyReading = readings.of('usage-row-key');
  // `usage-total-bounded`: "at most 9007199254740991 each" read as a bound on the sum of the four.
  // Stryker disable next-line all: the usage-total-bounded fault only
  if (faults.has('usage-total-bounded')) rows.forEach((r, k) => { if (usageTotal(r) > BigInt(MAX_SAFE)) throw badRequest('invalid_body', `rows[${k}]: total exceeds ${MAX_SAFE}`); });
  const changed = new Set<string>();
  const inserted = new Set<string>();
  // Rows written by this request, read back by its later rows: the request is one merge in order.
  const staged: Staged = faults.has('quadratic-usage-rows') ? new ListedRows(USAGE_KEY_FIELDS_BY_READING[keyReading]) : new Map<string, Row>();
  for (const row of rows) {
    // `usage-key-uri-encoded`: the key escaped for a key-value store, whose encoder throws on a lone surrogate.
    // Stryker disable next-line all: the usage-key-uri-encoded fault only
    if (faults.has('usage-key-uri-encoded')) encodeURIComponent(row.model);
    const key = usageKey(row, keyReading);
    const held = staged.get(key, row) ?? store.usageRow(scope, key);
    if (!held) inserted.add(key);
    const reported: Row = { input: row.input, output: row.output, cache_read: row.cache_read, cache_write: row.cache_write, day: row.day, assistant: row.assistant, model: row.model };
    let next: Row | undefined;
    if (!held) next = reported;
    else if (summed) {
      next = { ...held, input: held.input + row.input, output: held.output + row.output, cache_read: held.cache_read + row.cache_read, cache_write: held.cache_write + row.cache_write };
    } else if (faults.has('usage-last-write-wins')) {
      next = sameCounters(held, reported) && held.model === reported.model ? undefined : reported;
    } else if (faults.has('usage-per-field-max')) {
      const merged = {
        ...held,
        input: Math.max(held.input, row.input),
        output: Math.max(held.output, row.output),
        cache_read: Math.max(held.cache_read, row.cache_read),
        cache_write: Math.max(held.cache_write, row.cache_write),
      };
      next = sameCounters(held, merged) ? undefined : merged;
    } else if (keepsReported(held, reported, faults)) next = reported;
    if (next) {
      staged.set(key, next);
      changed.add(key);
    }
  }
  // `usage-check-then-act`: a store round trip between reading the held rows and writing the merge, outside any transaction.
  if (faults.has('usage-check-then-act')) await storeRoundTrip();
  const tokens = ctx.unnamed.has('stored-tokens-held') ? countTokens(store, scope, staged) : undefined;
  for (const [key, row] of staged) store.putUsageRow(scope, key, row);
  let stored = storedOf(readings, changed.size, store.usageRowCount(scope), rows.length);
  // Unnamed meanings of stored (4.3: "not shown"): the rows inserted (not raised), or the reports sent so far.
  if (ctx.unnamed.has('stored-rows-inserted')) stored = inserted.size;
  // The tokens the source holds, summed over its rows, kept within the range 4.3 gives stored at both ends (counters may be negative).
  if (tokens !== undefined) stored = Number(clamped(tokens, LIMITS.storedInteger));
  stored = countedReports(ctx.unnamed, store, scope) ?? stored;
  return { status: 200, data: dataOut({ stored }, faults) };
};

/** The unnamed meanings of stored that count reports: the report's number across every source (`stored-sequence`), or within its own (`stored-reports`). */
function countedReports(unnamed: RequestContext['unnamed'], store: object, scope: string): number | undefined {
  let counted: number | undefined;
  if (unnamed.has('stored-sequence')) {
    counted = (reportsStored.get(store) ?? 0) + 1;
    reportsStored.set(store, counted);
  }
  if (unnamed.has('stored-reports')) {
    const sent = reportsSent.get(store) ?? new Map<string, number>();
    reportsSent.set(store, sent);
    counted = (sent.get(scope) ?? 0) + 1;
    sent.set(scope, counted);
  }
  return counted;
}

/**
 * `usage-partial-store`: a report checked and stored row by row, in a loop that throws at the first
 * invalid row: the rows before it stay stored though the report is refused. Called with the refused
 * body; `valid` tells whether a body is valid (the server's own validator).
 */
export async function storeRowsBefore(body: unknown, valid: (body: unknown) => boolean, ctx: Omit<RequestContext<'reportUsage'>, 'body'>): Promise<void> {
  const rows: readonly unknown[] = isRecord(body) && Array.isArray(body.rows) ? body.rows : [];
  const before: unknown[] = [];
  for (const row of rows) {
    if (!valid({ rows: [row] })) break;
    before.push(row);
  }
  // Checked one by one above: each has the row's type.
  if (before.length > 0) await reportUsage({ ...ctx, body: { rows: before as EndpointBody<'reportUsage'>['rows'] } });
}
