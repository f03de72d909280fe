/**
 * 4.3 Report usage. A row is keyed within the caller's account and source by the fields
 * `usage-row-key` names; the merge is the spec model's (`mergeUsageRow`): a reported row replaces
 * the held one only when its total is strictly larger (rows are never added up, and re-sending
 * changes nothing), and the whole row is kept, never counter by counter. `stored` counts what
 * `usage-stored-meaning` says: the rows this request inserted or raised (default), the rows held
 * for the source after it, or the rows of the request.
 */
import { USAGE_COUNTERS, mergeUsageRow, usageKey, type UsageRowValue } from '../../spec/index.ts';
import { dataOut, type Handler } from '../context.ts';
import type { ReadingSet } from '../readings.ts';

type Row = Readonly<UsageRowValue>;

const sameCounters = (a: Row, b: Row): boolean => USAGE_COUNTERS.every((c) => a[c] === b[c]);

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

export const reportUsage: Handler<'reportUsage'> = (ctx) => {
  const { faults, readings, store } = ctx;
  const rows = ctx.body.rows;
  const scope = `${ctx.caller.accountId}\n${ctx.params.sourceId}`;
  const keyReading = readings.of('usage-row-key');
  const changed = new Set<string>();
  const inserted = new Set<string>();
  for (const row of rows) {
    const key = usageKey(row, keyReading);
    const held = store.usageRow(scope, key);
    if (!held) inserted.add(key);
    const reported: Row = { input: row.input, output: row.output, cache_read: row.cache_read, cache_write: row.cache_write, day: row.day, assistant: row.assistant, model: row.model };
    let next: Row | undefined;
    if (!held) next = reported;
    else if (faults.has('usage-summed')) {
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
    } else if (mergeUsageRow(held, reported).changed) next = reported;
    if (next) {
      store.putUsageRow(scope, key, next);
      changed.add(key);
    }
  }
  let stored = storedOf(readings, changed.size, store.usageRowCount(scope), rows.length);
  // Unnamed meanings of stored (4.3: "not shown"): the rows inserted (not raised), or the reports sent so far.
  if (ctx.unnamed.has('stored-rows-inserted')) stored = inserted.size;
  if (ctx.unnamed.has('stored-reports')) {
    const sent = reportsSent.get(store) ?? new Map<string, number>();
    reportsSent.set(store, sent);
    sent.set(scope, (sent.get(scope) ?? 0) + 1);
    stored = sent.get(scope)!;
  }
  return { status: 200, data: dataOut({ stored }, faults) };
};
