/**
 * The relations each usage property judges where `stored` fits no known reading (usage-relations.ts):
 * for every law of 4.3, two histories the law says end holding the same rows, as many reports long,
 * and the reports that then show what is held.
 */
import type { UsageRequest, UsageRow } from '../../src/check/model/usage-model.ts';
import { IDEMPOTENT_RELATION, NEVER_ADDED_RELATION, probeTail, tiesDecideOrder, zeroed, type UsageRelation } from './usage-relations.ts';

/** Rule 2: a report sent `times` more times holds what it held after the first, as do zeros of its rows (rule 1). */
export function resentRelation(rows: readonly UsageRow[], times: number): UsageRelation {
  return {
    law: { judgement: IDEMPOTENT_RELATION },
    because: `rule 2: the first source was sent one report ${times + 1} times, the second once and then ${times} report(s) of its rows with every counter 0, which rule 1 leaves alone: both hold that report's rows`,
    left: Array.from({ length: times + 1 }, () => rows),
    right: [rows, ...Array.from({ length: times }, () => zeroed(rows))],
    tail: probeTail(rows),
  };
}

/** Rule 1: a row, then a lower total of it, holds the row; so does the row sent twice (rule 2). */
export function lowerRelation(row: UsageRow, lower: UsageRow, higher: UsageRow): UsageRelation {
  return {
    law: { judgement: NEVER_ADDED_RELATION },
    because: 'rule 1: after a row, the first source was sent it again and the second the same row with every counter at most its own, which is never added and never replaces the larger: both hold the row',
    left: [[row], [row]],
    right: [[row], [lower]],
    tail: [[row], [higher], [row]],
  };
}

/**
 * Rule 1: a row, then a lower total of it (some counters may be higher: the total decides), holds the
 * row, as the row sent twice does (rule 2); `[hi, lo, mid, …]` as usage.monotone draws them.
 */
export function monotoneRelation([hi, lo, mid]: readonly UsageRow[]): UsageRelation {
  return {
    law: { judgement: NEVER_ADDED_RELATION },
    because: 'rule 1: one source was sent a row and then a lower total of it, which never replaces the larger, the other the row twice (rule 2): both hold the row',
    left: [[hi], [lo]],
    right: [[hi], [hi]],
    tail: [[mid], [hi]],
  };
}

/**
 * Rules 1 and 2: sources 0 and 1 sent the same rows, in another order or split over other reports,
 * hold the larger total of each; the shorter history is padded with zeros of a row it holds, which
 * rule 1 leaves alone, to as many reports. Undefined where a tie would let the order decide.
 */
export function sameRowsRelation(plan: readonly UsageRequest[]): UsageRelation | undefined {
  const rows = plan.flatMap((r) => r.rows);
  if (tiesDecideOrder(rows)) return undefined;
  const history = (source: number) => plan.filter((r) => r.source === source).map((r) => r.rows);
  const [left, right] = [history(0), history(1)];
  const pad = (h: (readonly UsageRow[])[], n: number) => [...h, ...Array.from({ length: n - h.length }, () => zeroed(h[0].slice(0, 1)))];
  const n = Math.max(left.length, right.length);
  return {
    law: { judgement: NEVER_ADDED_RELATION },
    because: 'rules 1 and 2: both sources were sent the same rows, in another order or split over other reports (the shorter padded with zeros of a row it holds): each keeps the larger total of every row, so both hold the same rows',
    left: pad(left, n),
    right: pad(right, n),
    tail: probeTail(rows),
  };
}

/** Rule 1 under concurrency: reports of one row sent at once hold the largest total, as the same reports sent in order do. */
export function racedRelation(rows: readonly UsageRow[]): UsageRelation {
  return {
    law: { judgement: NEVER_ADDED_RELATION },
    because: `rule 1: one source was sent ${rows.length} reports of one row at once, the other the same reports one after another: each keeps the larger total whatever the order, so both hold the largest`,
    left: rows.map((r) => [r]),
    right: rows.map((r) => [r]),
    tail: probeTail(rows),
    leftTogether: true,
  };
}
