/**
 * 4.3's merge rule, once, under every reading of the registry: "Rows are never added up. Each keeps
 * the larger of its stored and reported total." Which fields identify a row is a reading
 * (`usage-row-key`); the whole row is kept or replaced, never merged counter by counter (one total
 * per row). The reference, the usage properties and the usage-flood scenario all merge through it.
 */
import type { ReadingOf } from './assumptions.ts';
import { USAGE_COUNTERS, type UsageRowValue } from './resources.ts';

export type UsageCounter = (typeof USAGE_COUNTERS)[number];
export type UsageKeyReading = ReadingOf<'usage-row-key'>;

/** The fields of a row that can name it: every field but the counters. */
export type UsageKeyField = Exclude<keyof UsageRowValue, UsageCounter>;
export type UsageKeyFields = Readonly<Pick<UsageRowValue, UsageKeyField>>;
/** The four counters of a row. */
export type UsageCounters = Readonly<Pick<UsageRowValue, UsageCounter>>;

/** What the merge reads of a row: the spec's usage row (2.7), read only. */
export type UsageRowLike = Readonly<UsageRowValue>;

/** The fields that identify a row under each reading of `usage-row-key`. */
export const USAGE_KEY_FIELDS_BY_READING: { readonly [R in UsageKeyReading]: readonly UsageKeyField[] } = {
  'day-assistant-model': ['day', 'assistant', 'model'],
  'day-assistant': ['day', 'assistant'],
};

export function usageKey(row: UsageKeyFields, reading: UsageKeyReading): string {
  return JSON.stringify(USAGE_KEY_FIELDS_BY_READING[reading].map((f) => row[f]));
}

/** The row's total, exact even where four counters near 2^53 add up beyond what a double holds. */
export function usageTotal(row: UsageCounters): bigint {
  let t = 0n;
  for (const c of USAGE_COUNTERS) t += BigInt(row[c]);
  return t;
}

/** Which row a key holds after `reported` meets `held`: the one with the larger total (the held one on a tie). */
export function mergeUsageRow<R extends UsageCounters>(held: R | undefined, reported: R): { readonly row: R; readonly changed: boolean } {
  if (!held || usageTotal(reported) > usageTotal(held)) return { row: reported, changed: true };
  return { row: held, changed: false };
}
