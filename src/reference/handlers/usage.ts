/**
 * 4.3 Report usage. Registry defaults: a row is keyed by (day, assistant, model) within the
 * caller's account and source; its total is the sum of the four counters; a reported row replaces
 * the stored one only when its total is strictly larger (rows are never added up, and re-sending
 * changes nothing); `stored` counts the rows this request inserted or raised.
 */
import { USAGE_COUNTERS, mergeUsageRow, usageKey, type UsageRowLike } from '../../spec/index.ts';
import { integerOut, type Handler } from '../context.ts';
import type { UsageCounters } from '../store.ts';

type Row = UsageRowLike;

function countersOf(r: UsageCounters): UsageCounters {
  return { input: r.input, output: r.output, cache_read: r.cache_read, cache_write: r.cache_write };
}

const sameCounters = (a: UsageCounters, b: UsageCounters): boolean => USAGE_COUNTERS.every((c) => a[c] === b[c]);

export const reportUsage: Handler = (ctx) => {
  const { faults, store } = ctx;
  const rows = (ctx.body as { rows: readonly Row[] }).rows;
  const scope = `${ctx.caller.accountId}\n${ctx.params['sourceId']!}`;
  const changed = new Set<string>();
  for (const row of rows) {
    const key = usageKey(row, 'day-assistant-model');
    const stored = store.usageRow(scope, key);
    const reported = countersOf(row);
    let next: UsageCounters | undefined;
    if (!stored) next = reported;
    else if (faults.has('usage-summed')) {
      next = { input: stored.input + row.input, output: stored.output + row.output, cache_read: stored.cache_read + row.cache_read, cache_write: stored.cache_write + row.cache_write };
    } else if (faults.has('usage-last-write-wins')) {
      next = sameCounters(stored, reported) ? undefined : reported;
    } else if (faults.has('usage-per-field-max')) {
      const merged = {
        input: Math.max(stored.input, row.input),
        output: Math.max(stored.output, row.output),
        cache_read: Math.max(stored.cache_read, row.cache_read),
        cache_write: Math.max(stored.cache_write, row.cache_write),
      };
      next = sameCounters(stored, merged) ? undefined : merged;
    } else if (mergeUsageRow(stored, reported).changed) next = reported;
    if (next) {
      store.putUsageRow(scope, key, next);
      changed.add(key);
    }
  }
  return { status: 200, data: { stored: integerOut(changed.size, faults) } };
};
