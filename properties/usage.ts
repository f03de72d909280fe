/**
 * 4.3 Usage: rows are never added up, each keeps the larger of its stored and reported total, and
 * re-sending the same logs changes nothing. Put together, the merge is a semilattice join:
 * idempotent, commutative, associative and monotone. The spec has no read endpoint, so every
 * property observes state through `stored` (assumption `usage-stored-meaning`) and is judged by the
 * model in support/usage-model.ts under each reading of `usage-row-key`.
 */
import fc from 'fast-check';
import { defineProperty, type Property } from '../src/check/property.ts';
import type { UsageRequest, UsageRow } from '../src/check/usage-model.ts';
import { rowKey } from '../src/check/usage-model.ts';
import { arbCounters, arbCut, arbKey, arbRow, IDEMPOTENT, lowered, NEVER_ADDED, probes, raised, runUsagePlan } from './support/usage.ts';
import { VALUE_READINGS } from './shapes.ts';

const READINGS = ['usage-stored-meaning', 'usage-row-key', 'caller-kinds', ...VALUE_READINGS] as const;

/** Rows with distinct keys (one request never names a key twice where `stored` must be exact). */
const arbDistinctRows = (max: number) => fc.uniqueArray(arbRow, { minLength: 1, maxLength: max, selector: rowKey });

const describePlan = (plan: readonly UsageRequest[]) =>
  plan.map((r) => `#${r.source + 1}: ${r.rows.map((x) => `${x.day}/${x.assistant}/${x.model}=${x.input},${x.output},${x.cache_read},${x.cache_write}`).join(' ')}`).join(' | ');

// 4.3 rule 2: sending the same logs again changes nothing.
const idempotent = defineProperty({
  id: 'usage.idempotent',
  section: '4.3',
  invariant: 'Re-sending a report changes nothing: the re-send stores no row.',
  assumptions: [...READINGS],
  judgements: [IDEMPOTENT],
  needs: ['device'],
  arbitrary: () =>
    fc.record({ rows: arbDistinctRows(5), times: fc.integer({ min: 1, max: 3 }) }).map(({ rows, times }) =>
      Array.from({ length: times + 1 }, (): UsageRequest => ({ source: 0, rows })),
    ),
  check: (ctx, plan) => runUsagePlan(ctx, plan, IDEMPOTENT),
  describe: describePlan,
});

// 4.3 rule 1: rows are never added up; a row with a lower total leaves the stored one alone.
const neverSummed = defineProperty({
  id: 'usage.never-summed',
  section: '4.3',
  invariant: 'A row is never added to the stored one: the same row again, or one with every counter lower, stores nothing; a higher one raises it.',
  assumptions: [...READINGS],
  judgements: [NEVER_ADDED],
  needs: ['device'],
  arbitrary: () =>
    fc.record({ row: arbRow, cut: arbCut, by: fc.integer({ min: 1, max: 1000 }) }).map(({ row, cut, by }): UsageRequest[] => [
      { source: 0, rows: [row] },
      { source: 0, rows: [row] },
      { source: 0, rows: [lowered(row, cut)] },
      { source: 0, rows: [row] },
      { source: 0, rows: [raised(row, by)] },
    ]),
  check: (ctx, plan) => runUsagePlan(ctx, plan),
  describe: describePlan,
});

// 4.3 rule 1: the larger total wins whatever the order; a lower one never replaces a higher one.
const monotone = defineProperty({
  id: 'usage.monotone',
  section: '4.3',
  invariant: 'A reported row with a lower total never replaces a stored row with a higher total.',
  assumptions: [...READINGS],
  judgements: [NEVER_ADDED],
  needs: ['device'],
  arbitrary: () =>
    fc
      .record({ key: arbKey, high: arbCounters, low: arbCounters })
      .filter(({ high, low }) => sum(low) < sum(high))
      .map(({ key, high, low }): UsageRequest[] => {
        const hi: UsageRow = { ...key, ...high };
        const lo: UsageRow = { ...key, ...low };
        // A probe halfway between: raises the row only if the lower report replaced the higher one.
        const mid: UsageRow = { ...lo, input: lo.input + Math.ceil((sum(high) - sum(low)) / 2) };
        return [
          { source: 0, rows: [hi] },
          { source: 0, rows: [lo] },
          { source: 0, rows: [mid] },
          { source: 0, rows: [hi] },
        ];
      }),
  check: (ctx, plan) => runUsagePlan(ctx, plan),
  describe: describePlan,
});

function sum(c: { input: number; output: number; cache_read: number; cache_write: number }): number {
  return c.input + c.output + c.cache_read + c.cache_write;
}

// 4.3: the merge is commutative: two sources given the same rows in different orders end equal.
const commutative = defineProperty({
  id: 'usage.commutative',
  section: '4.3',
  invariant: 'Reports in any order end in the same state: two sources fed the same rows in different orders hold the same rows.',
  assumptions: [...READINGS],
  judgements: [NEVER_ADDED],
  needs: ['device'],
  runs: 15,
  arbitrary: () =>
    fc
      .array(fc.tuple(fc.integer({ min: 0, max: 1 }), arbCounters), { minLength: 2, maxLength: 6 })
      .chain((items) => fc.tuple(fc.constant(items), fc.shuffledSubarray(items.map((_, i) => i), { minLength: items.length, maxLength: items.length }), fc.tuple(arbKey, arbKey)))
      .map(([items, order, keys]) => {
        const rows = items.map(([k, c]): UsageRow => ({ ...keys[k]!, ...c }));
        return [
          ...rows.map((r): UsageRequest => ({ source: 0, rows: [r] })),
          ...order.map((i): UsageRequest => ({ source: 1, rows: [rows[i]!] })),
        ];
      }),
  check: (ctx, plan) => runUsagePlan(ctx, [...plan, ...probes(ctx, plan, [0, 1])]),
  describe: describePlan,
});

// 4.3: the merge is associative: one request with all rows equals the rows split over requests.
const associative = defineProperty({
  id: 'usage.associative',
  section: '4.3',
  invariant: 'One request with all rows ends in the same state as the same rows split over several requests.',
  assumptions: [...READINGS],
  judgements: [NEVER_ADDED],
  needs: ['device'],
  runs: 15,
  arbitrary: () =>
    fc
      .tuple(arbDistinctRows(6), fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 6 }), fc.array(arbCounters, { maxLength: 3 }))
      .map(([rows, cuts, extra]) => {
        // Later rows with keys already seen make the merge inside one request matter.
        const all = [...rows, ...extra.map((c, i) => ({ ...rows[i % rows.length]!, ...c }))];
        const plan: UsageRequest[] = [{ source: 0, rows: all }];
        let at = 0;
        for (const n of cuts) {
          if (at >= all.length) break;
          plan.push({ source: 1, rows: all.slice(at, at + n) });
          at += n;
        }
        if (at < all.length) plan.push({ source: 1, rows: all.slice(at) });
        return plan;
      }),
  check: (ctx, plan) => runUsagePlan(ctx, [...plan, ...probes(ctx, plan, [0, 1])]),
  describe: describePlan,
});

const USAGE: readonly Property[] = [idempotent, neverSummed, monotone, commutative, associative];
export default USAGE;
