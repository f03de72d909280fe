/**
 * A model of 4.3's merge, evaluated under every reading the registry allows, so that a usage
 * property can say which reading a target's `stored` answers follow: the chosen one (pass), another
 * one (assumption), or none (violation). The spec gives no read endpoint; `stored` is all we see.
 * The merge itself is the spec model's (`mergeUsageRow`); this file only replays plans through it.
 */
import { assumptionOf, mergeUsageRow, usageKey, type ReadingOf, type UsageCounter, type UsageKeyReading, type UsageRowValue } from '../../src/spec/index.ts';

export type Counter = UsageCounter;
/** A usage row (2.7), as the spec model types it. */
export type UsageRow = UsageRowValue;

export type KeyReading = UsageKeyReading;
export type StoredReading = ReadingOf<'usage-stored-meaning'>;
export const KEY_READINGS = assumptionOf('usage-row-key').choices.map((c) => c.value) as readonly KeyReading[];
export const STORED_READINGS = assumptionOf('usage-stored-meaning').choices.map((c) => c.value) as readonly StoredReading[];

/** The key of the registry's default reading: what the generators draw collisions over. */
export function rowKey(r: UsageRow): string {
  return usageKey(r, 'day-assistant-model');
}

/** One source's rows under one key reading. */
class SourceState {
  private readonly rows = new Map<string, UsageRow>();
  constructor(private readonly key: KeyReading) {}

  /** Merges one row; true when the stored row was inserted or raised. */
  merge(r: UsageRow): boolean {
    const k = usageKey(r, this.key);
    const m = mergeUsageRow(this.rows.get(k), r);
    if (m.changed) this.rows.set(k, { ...r });
    return m.changed;
  }

  get size(): number {
    return this.rows.size;
  }

  get(r: UsageRow): UsageRow | undefined {
    return this.rows.get(usageKey(r, this.key));
  }
}

export interface UsageRequest {
  /** Index of the case's source (fresh source ids are drawn at execution time). */
  readonly source: number;
  readonly rows: readonly UsageRow[];
}

/**
 * The `stored` each request should answer under one pair of readings. Undefined where the reading
 * does not say (rows-changed for a request that names one key twice).
 */
export function predict(plan: readonly UsageRequest[], key: KeyReading, stored: StoredReading): (number | undefined)[] {
  const sources = new Map<number, SourceState>();
  return plan.map((req) => {
    let s = sources.get(req.source);
    if (!s) sources.set(req.source, (s = new SourceState(key)));
    const keys = new Set(req.rows.map((r) => usageKey(r, key)));
    const changed = new Set<string>();
    for (const r of req.rows) if (s.merge(r)) changed.add(usageKey(r, key));
    switch (stored) {
      case 'rows-held':
        return s.size;
      case 'rows-accepted':
        return req.rows.length;
      case 'rows-changed':
        return keys.size === req.rows.length ? changed.size : undefined;
      default:
        return stored satisfies never;
    }
  });
}

/** The row a source holds for `row`'s key after `plan`, under one key reading. */
export function finalRow(plan: readonly UsageRequest[], source: number, row: UsageRow, key: KeyReading): UsageRow | undefined {
  const s = new SourceState(key);
  for (const req of plan) if (req.source === source) for (const r of req.rows) s.merge(r);
  return s.get(row);
}

/** Index of the first answer that differs from the prediction, or -1. */
export function firstMismatch(observed: readonly (number | undefined)[], predicted: readonly (number | undefined)[]): number {
  for (let i = 0; i < predicted.length; i++) {
    if (predicted[i] !== undefined && observed[i] !== predicted[i]) return i;
  }
  return -1;
}
