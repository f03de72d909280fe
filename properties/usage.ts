/**
 * 4.3 Usage: rows are never added up, each keeps the larger of its stored and reported total, and
 * re-sending the same logs changes nothing. Put together, the merge is a semilattice join:
 * idempotent, commutative, associative and monotone. The spec has no read endpoint, so every
 * property observes state through `stored` (assumption `usage-stored-meaning`) and is judged by the
 * model in support/usage-model.ts under each reading of `usage-row-key`.
 */
import fc from 'fast-check';
import { assumptionMismatch, blame } from '../src/check/judge/judge.ts';
import { PASS, defineProperty, notApplicable, unknownOutcome, type Outcome, type Property } from '../src/check/property.ts';
import type { KeyReading, StoredReading, UsageRequest, UsageRow } from '../src/check/model/usage-model.ts';
import { calibrationPlan, fittingPairs, predict, rowKey } from '../src/check/model/usage-model.ts';
import { MAX_SAFE } from '../src/spec/index.ts';
import { arbCounters, arbCut, arbKey, arbRow, calibrationDays, IDEMPOTENT, lowered, NEVER_ADDED, raised, readings, runUsagePlan } from './support/usage.ts';
import { lowerRelation, monotoneRelation, racedRelation, resentRelation, sameRowsRelation } from './support/usage-laws.ts';
import { IDEMPOTENT_RELATION, judgeRelation, NEVER_ADDED_RELATION, reportRaced, reportRows } from './support/usage-relations.ts';
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
  judgements: [IDEMPOTENT, IDEMPOTENT_RELATION],
  needs: ['device'],
  arbitrary: () =>
    fc.record({ rows: arbDistinctRows(5), times: fc.integer({ min: 1, max: 3 }) }).map(({ rows, times }) =>
      Array.from({ length: times + 1 }, (): UsageRequest => ({ source: 0, rows })),
    ),
  check: (ctx, plan) => runUsagePlan(ctx, plan, { rule: IDEMPOTENT, relation: resentRelation(plan[0].rows, plan.length - 1) }),
  describe: describePlan,
});

// 4.3 rule 1: rows are never added up; a row with a lower total leaves the stored one alone.
const neverSummed = defineProperty({
  id: 'usage.never-summed',
  section: '4.3',
  invariant: 'A row is never added to the stored one: the same row again, or one with every counter lower, stores nothing; a higher one raises it.',
  assumptions: [...READINGS],
  judgements: [NEVER_ADDED, NEVER_ADDED_RELATION],
  needs: ['device'],
  arbitrary: () =>
    fc.record({ row: arbRow, cut: arbCut, by: fc.integer({ min: 1, max: 1000 }) }).map(({ row, cut, by }): UsageRequest[] => [
      { source: 0, rows: [row] },
      { source: 0, rows: [row] },
      { source: 0, rows: [lowered(row, cut)] },
      { source: 0, rows: [row] },
      { source: 0, rows: [raised(row, by)] },
    ]),
  check: (ctx, plan) => runUsagePlan(ctx, plan, { relation: lowerRelation(plan[0].rows[0], plan[2].rows[0], plan[4].rows[0]) }),
  describe: describePlan,
});

// 4.3 rule 1: the larger total wins whatever the order; a lower one never replaces a higher one.
const monotone = defineProperty({
  id: 'usage.monotone',
  section: '4.3',
  invariant: 'A reported row with a lower total never replaces a stored row with a higher total.',
  assumptions: [...READINGS],
  judgements: [NEVER_ADDED, NEVER_ADDED_RELATION],
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
  check: (ctx, plan) => runUsagePlan(ctx, plan, { relation: monotoneRelation(plan.map((r) => r.rows[0])) }),
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
  judgements: [NEVER_ADDED, NEVER_ADDED_RELATION],
  needs: ['device'],
  runs: 15,
  arbitrary: () =>
    fc
      .array(fc.tuple(fc.integer({ min: 0, max: 1 }), arbCounters), { minLength: 2, maxLength: 6 })
      .chain((items) => fc.tuple(fc.constant(items), fc.shuffledSubarray(items.map((_, i) => i), { minLength: items.length, maxLength: items.length }), fc.tuple(arbKey, arbKey)))
      .map(([items, order, keys]) => {
        const rows = items.map(([k, c]): UsageRow => ({ ...keys[k], ...c }));
        return [
          ...rows.map((r): UsageRequest => ({ source: 0, rows: [r] })),
          ...order.map((i): UsageRequest => ({ source: 1, rows: [rows[i]] })),
        ];
      }),
  check: (ctx, plan) => runUsagePlan(ctx, plan, { probe: [0, 1], relation: sameRowsRelation(plan) }),
  describe: describePlan,
});

// 4.3: the merge is associative: one request with all rows equals the rows split over requests.
const associative = defineProperty({
  id: 'usage.associative',
  section: '4.3',
  invariant: 'One request with all rows ends in the same state as the same rows split over several requests.',
  assumptions: [...READINGS],
  judgements: [NEVER_ADDED, NEVER_ADDED_RELATION],
  needs: ['device'],
  runs: 15,
  arbitrary: () =>
    fc
      .tuple(arbDistinctRows(6), fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 6 }), fc.array(arbCounters, { maxLength: 3 }))
      .map(([rows, cuts, extra]) => {
        // Later rows with keys already seen make the merge inside one request matter.
        const all = [...rows, ...extra.map((c, i) => ({ ...rows[i % rows.length], ...c }))];
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
  check: (ctx, plan) => runUsagePlan(ctx, plan, { probe: [0, 1], relation: sameRowsRelation(plan) }),
  describe: describePlan,
});

/** The counters a row is raised through one at a time in `usage.large-totals`. */
const RAISED = ['output', 'cache_read', 'cache_write'] as const;

// 4.3 rule 1 with 2.7's bounds: totals past 2^53 (four counters each within their stated maximum) are compared exactly.
const largeTotals = defineProperty({
  id: 'usage.large-totals',
  section: '4.3',
  invariant: `Totals are compared exactly however large: a row whose four counters are each within ${MAX_SAFE} is accepted though they sum past it, and a row larger by one token, past 2^53, is kept.`,
  assumptions: [...READINGS],
  judgements: [NEVER_ADDED],
  needs: ['device'],
  runs: 10,
  arbitrary: () =>
    fc
      .record({ key: arbKey, small: fc.tuple(fc.nat(3), fc.nat(3), fc.nat(3)), by: fc.constantFrom(...RAISED) })
      .map(({ key, small: [o, r, w], by }): UsageRequest[] => {
        const base: UsageRow = { ...key, input: MAX_SAFE, output: o, cache_read: r, cache_write: w };
        // Totals T, T+1, T+2, T+3 just past 2^53: doubles are 2 apart there, so a double sum ties at least one step.
        const steps = [0, 1, 2, 3].map((k): UsageRow => ({ ...base, [by]: base[by] + k }));
        const all: UsageRow = { ...key, input: MAX_SAFE, output: MAX_SAFE, cache_read: MAX_SAFE, cache_write: MAX_SAFE };
        return [...steps, steps[3], all, all, { ...all, cache_write: MAX_SAFE - 1 }].map((row) => ({ source: 0, rows: [row] }));
      }),
  check: (ctx, plan) => runUsagePlan(ctx, plan),
  describe: describePlan,
});

/** Concurrent reports of one row: how many, and how long to wait for every one to be held before releasing anyway. */
const RACERS = { min: 4, max: 8 } as const;


// 4.3 rule 1 under concurrency: reports of one row racing each other still leave the larger total.
const concurrentReports = defineProperty({
  id: 'usage.concurrent-reports',
  section: '4.3',
  invariant:
    'Reports of one row sent at once leave the row with the largest total, whatever order they are written in: a report just below the largest then stores nothing (seen where stored counts the rows a request changed).',
  assumptions: [...READINGS],
  judgements: [NEVER_ADDED, NEVER_ADDED_RELATION],
  needs: ['device'],
  runs: 5,
  arbitrary: () =>
    fc
      .record({ key: arbKey, top: fc.integer({ min: 10_000, max: 1_000_000 }), others: fc.uniqueArray(fc.integer({ min: 1, max: 1000 }), { minLength: RACERS.min - 1, maxLength: RACERS.max - 1 }) })
      // Largest first: a server whose last write wins then keeps a smaller row.
      .map(({ key, top, others }) => [top, ...others.sort((a, b) => b - a)].map((input): UsageRow => ({ ...key, input, output: 0, cache_read: 0, cache_write: 0 }))),
  async check(ctx, rows): Promise<Outcome> {
    const sourceId = ctx.sourceId();
    // The calibration names what stored counts on this source; only a count of changed rows shows whether the last report changed the row.
    const calibration = calibrationPlan(0, calibrationDays());
    const answers: (number | undefined)[] = [];
    for (const [i, req] of calibration.entries()) {
      const o = await reportRows(ctx, sourceId, req.rows, `calibration report ${i + 1}`, answers);
      if (!o.ok) return o;
    }
    const fits = fittingPairs(calibration, answers);
    if (fits.length === 0) return judgeRelation(ctx, racedRelation(rows));
    // Below the largest and above every other: it changes the row only if a smaller report was written over the largest.
    const below: UsageRow = { ...rows[0], input: rows[0].input - 1 };
    const answerAfter = (held: UsageRow, p: { key: KeyReading; stored: StoredReading }) => predict([...calibration, { source: 0, rows: [held] }, { source: 0, rows: [below] }], p.key, p.stored).at(-1);
    // rows is the calibration's non-empty list (its first row is read on the same line)
    const telling = fits.filter((p) => answerAfter(rows[0], p) !== answerAfter(rows.at(-1)!, p));
    if (telling.length === 0) return notApplicable(`stored read as ${fits.map((p) => p.stored).join(' or ')} (as the calibration identified) answers the same whichever total the row kept`);
    const expected = new Set(telling.map((p) => answerAfter(rows[0], p)));
    if (expected.size > 1) return unknownOutcome(`the calibration answers (${answers.join(', ')}) fit several readings of stored that expect different answers here (${telling.map((p) => `${p.key}/${p.stored}`).join('; ')})`);
    const racing = await reportRaced(ctx, sourceId, rows, []);
    if (!racing.ok) return racing;
    const after: (number | undefined)[] = [];
    const o = await reportRows(ctx, sourceId, [below], 'a report just below the largest of the concurrent ones', after);
    if (!o.ok) return o;
    const r = { stored: after[0] };
    const [want] = expected;
    if (r.stored === want) {
      const chosen = readings(ctx);
      if (telling.some((p) => p.key === chosen.key && p.stored === chosen.stored)) return PASS;
      const p = telling[0];
      return { ...assumptionMismatch(p.stored !== chosen.stored ? 'usage-stored-meaning' : 'usage-row-key', `the calibration identifies usage-row-key=${p.key}, usage-stored-meaning=${p.stored} instead of ${chosen.key}, ${chosen.stored}; the row kept the largest total under it`), checked: true };
    }
    return blame(
      { judgement: NEVER_ADDED },
      `after ${rows.length} concurrent reports of one row (input ${rows.map((x) => x.input).join(', ')}), a report of input ${below.input} answered stored ${String(r.stored)}, where a row holding ${rows[0].input} answers ${String(want)} (stored read as ${telling.map((p) => p.stored).join(' or ')}, as the calibration identified): the row had kept a smaller total`,
    );
  },
  describe: (rows) => `${rows.length} concurrent reports of ${rows[0]?.day}/${rows[0]?.assistant}/${rows[0]?.model} with input ${rows.map((r) => r.input).join(', ')}`,
});

const USAGE: readonly Property[] = [idempotent, neverSummed, monotone, commutative, associative, largeTotals, concurrentReports];
export default USAGE;
