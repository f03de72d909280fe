/**
 * A model of 4.3's merge, evaluated under every reading the registry allows, so that a usage
 * property can say which reading a target's `stored` answers follow: the chosen one (pass), another
 * one (assumption), or none (violation). The spec gives no read endpoint; `stored` is all we see.
 * The merge itself is the spec model's (`mergeUsageRow`); this file only replays plans through it.
 */
import { mergeUsageRow, readingsOf, USAGE_COUNTERS, usageKey, type ReadingOf, type UsageCounter, type UsageKeyReading, type UsageRowValue } from '../../spec/index.ts';

export type Counter = UsageCounter;
/** A usage row (2.7), as the spec model types it. */
export type UsageRow = UsageRowValue;

export type KeyReading = UsageKeyReading;
export type StoredReading = ReadingOf<'usage-stored-meaning'>;
export const KEY_READINGS: readonly KeyReading[] = readingsOf('usage-row-key');
export const STORED_READINGS: readonly StoredReading[] = readingsOf('usage-stored-meaning');

/** The key of the registry's default reading: what the generators draw collisions over. */
export function rowKey(r: UsageRow): string {
  return usageKey(r, 'day-assistant-model');
}

/**
 * How a row meets the one held: 4.3's rule (the larger total), or one of the two mistakes a usage
 * store makes most (adding the counters up; keeping the last write), against which a case's `stored`
 * answers are checked for sight (`blindTo`).
 */
export type Merge = 'larger' | 'summed' | 'last-write';

function merged(held: UsageRow | undefined, r: UsageRow, how: Merge): { readonly row: UsageRow; readonly changed: boolean } {
  switch (how) {
    case 'larger':
      return mergeUsageRow(held, r);
    case 'summed':
      return held ? { row: { ...held, ...Object.fromEntries(USAGE_COUNTERS.map((c) => [c, held[c] + r[c]])) }, changed: USAGE_COUNTERS.some((c) => r[c] !== 0) } : { row: r, changed: true };
    case 'last-write':
      return { row: r, changed: !held || USAGE_COUNTERS.some((c) => held[c] !== r[c]) || held.model !== r.model };
    default:
      return how satisfies never;
  }
}

/** One source's rows under one key reading. */
class SourceState {
  private readonly rows = new Map<string, UsageRow>();
  constructor(
    private readonly key: KeyReading,
    private readonly how: Merge = 'larger',
  ) {}

  /** Merges one row; true when the stored row was inserted or changed. */
  merge(r: UsageRow): boolean {
    const k = usageKey(r, this.key);
    const m = merged(this.rows.get(k), r, this.how);
    if (m.changed) this.rows.set(k, { ...m.row });
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
 * does not say (rows-changed for a request that names one key twice and raises it twice: one row
 * changed, or two reported rows that changed it).
 */
export function predict(plan: readonly UsageRequest[], key: KeyReading, stored: StoredReading, how: Merge = 'larger'): (number | undefined)[] {
  const sources = new Map<number, SourceState>();
  return plan.map((req) => {
    let s = sources.get(req.source);
    if (!s) sources.set(req.source, (s = new SourceState(key, how)));
    const changed = new Set<string>();
    let itemsChanged = 0;
    for (const r of req.rows) {
      if (!s.merge(r)) continue;
      itemsChanged++;
      changed.add(usageKey(r, key));
    }
    switch (stored) {
      case 'rows-held':
        return s.size;
      case 'rows-accepted':
        return req.rows.length;
      case 'rows-changed':
        // A request naming one key twice changes one row, or two items: said only where both counts agree.
        return itemsChanged === changed.size ? changed.size : undefined;
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

/**
 * A plan's `stored` answers in order. `resent`: the answers to a report whose earlier copy got no
 * answer and was sent again (under the nemesis, client.ts `resentAfterNoAnswer`): the first copy may
 * have been applied, so the answer is the report's, or its replay's (rule 2 keeps the state, not
 * necessarily what stored counts). Only the state after it is the laws' to judge.
 */
export type StoredAnswers = (number | undefined)[] & { resent?: Set<number> };

/** Marks answer `i` as one to a report sent again after no answer (see `StoredAnswers`). */
export function markResent(answers: StoredAnswers, i: number): void {
  (answers.resent ??= new Set()).add(i);
}

/** Whether answer `i` answered a report sent again after no answer. */
export function resentAt(answers: StoredAnswers, i: number): boolean {
  return answers.resent?.has(i) === true;
}

/** What request `i` answers as the second copy of itself (the first applied, its answer lost): the state is the same, stored may not be. */
export function replayPrediction(plan: readonly UsageRequest[], i: number, key: KeyReading, stored: StoredReading): number | undefined {
  return predict([...plan.slice(0, i + 1), plan[i]], key, stored)[i + 1];
}

/**
 * Index of the first answer that differs from the prediction, or -1. With the plan and readings,
 * an answer to a report sent again (`resent`) may also be its replay's.
 */
export function firstMismatch(observed: StoredAnswers, predicted: readonly (number | undefined)[], replay?: { readonly plan: readonly UsageRequest[]; readonly key: KeyReading; readonly stored: StoredReading }): number {
  for (let i = 0; i < predicted.length; i++) {
    if (predicted[i] === undefined || observed[i] === predicted[i]) continue;
    if (replay && resentAt(observed, i) && observed[i] === replayPrediction(replay.plan, i, replay.key, replay.stored)) continue;
    return i;
  }
  return -1;
}

/** Every pair of readings `stored` may follow: key reading × meaning. */
export const USAGE_READING_PAIRS: readonly { readonly key: KeyReading; readonly stored: StoredReading }[] = KEY_READINGS.flatMap((key) => STORED_READINGS.map((stored) => ({ key, stored })));

/**
 * The calibration: three reports on one fresh source whose `stored` answers differ under every pair
 * of readings (3,3,3 · 3,6,8 · 3,3,4 under day-assistant-model for rows-changed, rows-held,
 * rows-accepted; 2,3,3 · 2,4,5 under day-assistant) and from what `stored` would answer if it
 * counted something no reading names: requests (1,2,3), tokens (thousands), rows inserted but not
 * raised (3,3,2 · 2,2,1), a key of the day alone (2,2,2), a constant. It only inserts rows and
 * raises them strictly under both keys (and names one zero row twice in one request), so a server
 * whose merge is wrong, summing or keeping the last write, answers it as a correct one of its
 * meaning does: the meaning is identified, and the laws that follow it catch the merge. An answer
 * that fits no pair is no known reading, and says so.
 */
export function calibrationPlan(source: number, days: { readonly recent: string; readonly older: string }): UsageRequest[] {
  const row = (day: string, assistant: string, model: string, total: number): UsageRow => ({ day, assistant, model, input: total, output: 0, cache_read: 0, cache_write: 0 });
  const [d1, d2] = [days.recent, days.older];
  const [A, B, C] = ['pouchproof-a', 'pouchproof-b', 'pouchproof-c'];
  const zero = row(d1, C, 'calibration-1', 0);
  return [
    { source, rows: [row(d1, A, 'calibration-1', 5000), row(d1, A, 'calibration-2', 3000), row(d2, B, 'calibration-2', 0)] },
    { source, rows: [row(d1, A, 'calibration-3', 7000), row(d2, A, 'calibration-1', 9000), row(d1, B, 'calibration-1', 4000)] },
    { source, rows: [row(d2, B, 'calibration-1', 3000), zero, zero, row(d1, A, 'calibration-1', 8000)] },
  ];
}

/** The pairs of readings whose predictions for `plan` match every answer observed (undefined answers match nothing). */
export function fittingPairs(plan: readonly UsageRequest[], observed: StoredAnswers): { key: KeyReading; stored: StoredReading }[] {
  return USAGE_READING_PAIRS.filter((p) => {
    const predicted = predict(plan, p.key, p.stored);
    return predicted.every((v) => v !== undefined) && firstMismatch(observed, predicted, { plan, ...p }) < 0;
  });
}

/**
 * Whether `stored`, read as this pair, answers the plan alike whichever way rows are merged: then the
 * answers show nothing of 4.3's rule (rows-held counts rows, rows-accepted the request's own), and a
 * case that matched them vouches for nothing.
 */
export function blindTo(plan: readonly UsageRequest[], key: KeyReading, stored: StoredReading): boolean {
  const right = predict(plan, key, stored);
  const alike = (xs: readonly (number | undefined)[]) => xs.every((x, i) => x === right[i]);
  return alike(predict(plan, key, stored, 'summed')) && alike(predict(plan, key, stored, 'last-write'));
}
