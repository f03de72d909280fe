/**
 * A model of 4.3's merge, evaluated under every reading the registry allows, so that a usage
 * property can say which reading a target's `stored` answers follow: the chosen one (pass), another
 * one (assumption), or none (violation). The spec gives no read endpoint; `stored` is all we see.
 */
import { USAGE_COUNTERS, USAGE_KEY_FIELDS } from '../../src/spec/index.ts';

export type Counter = (typeof USAGE_COUNTERS)[number];
export type UsageRow = Record<Counter, number> & { day: string; assistant: string; model: string };

export type KeyReading = 'day-assistant-model' | 'per-field-max';
export type StoredReading = 'rows-changed' | 'rows-held' | 'rows-accepted';
export const KEY_READINGS: readonly KeyReading[] = ['day-assistant-model', 'per-field-max'];
export const STORED_READINGS: readonly StoredReading[] = ['rows-changed', 'rows-held', 'rows-accepted'];

export function rowKey(r: UsageRow): string {
  return JSON.stringify(USAGE_KEY_FIELDS.map((f) => r[f]));
}

export function total(r: UsageRow): bigint {
  return USAGE_COUNTERS.reduce((s, c) => s + BigInt(r[c]), 0n);
}

/** One source's rows under one key reading. */
class SourceState {
  private readonly rows = new Map<string, UsageRow>();
  constructor(private readonly key: KeyReading) {}

  /** Merges one row; true when the stored row was inserted or raised. */
  merge(r: UsageRow): boolean {
    const k = rowKey(r);
    const old = this.rows.get(k);
    if (!old) {
      this.rows.set(k, { ...r });
      return true;
    }
    if (this.key === 'day-assistant-model') {
      if (total(r) <= total(old)) return false;
      this.rows.set(k, { ...r });
      return true;
    }
    let raised = false;
    const next = { ...old };
    for (const c of USAGE_COUNTERS) {
      if (r[c] > old[c]) {
        next[c] = r[c];
        raised = true;
      }
    }
    this.rows.set(k, next);
    return raised;
  }

  get size(): number {
    return this.rows.size;
  }

  get(k: string): UsageRow | undefined {
    return this.rows.get(k);
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
    const keys = new Set(req.rows.map(rowKey));
    const changed = new Set<string>();
    for (const r of req.rows) if (s.merge(r)) changed.add(rowKey(r));
    if (stored === 'rows-held') return s.size;
    if (stored === 'rows-accepted') return req.rows.length;
    return keys.size === req.rows.length ? changed.size : undefined;
  });
}

/** The row a source holds for `row`'s key after `plan`, under one key reading. */
export function finalRow(plan: readonly UsageRequest[], source: number, row: UsageRow, key: KeyReading): UsageRow | undefined {
  const s = new SourceState(key);
  for (const req of plan) if (req.source === source) for (const r of req.rows) s.merge(r);
  return s.get(rowKey(row));
}

/** Index of the first answer that differs from the prediction, or -1. */
export function firstMismatch(observed: readonly (number | undefined)[], predicted: readonly (number | undefined)[]): number {
  for (let i = 0; i < predicted.length; i++) {
    if (predicted[i] !== undefined && observed[i] !== predicted[i]) return i;
  }
  return -1;
}
