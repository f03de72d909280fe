/**
 * Running and judging a usage plan (4.3): every request must be accepted (the rows are valid by
 * the letter under every reading), and the `stored` answers must follow the model under the
 * profile's readings. A run that follows another row-key reading, or the rows-held meaning of
 * `stored`, is an assumption mismatch; anything else is a violation.
 */
import fc from 'fast-check';
import { judgeServed } from '../../src/check/controls.ts';
import { assumptionMismatch, blame, dataOf, type Blame } from '../../src/check/judge.ts';
import { specJudgement, type SpecJudgement } from '../../src/check/judgements.ts';
import { PASS, type CaseContext, type Outcome } from '../../src/check/property.ts';
import type { Json } from '../../src/gen/index.ts';
import { CHARSETS, USAGE_COUNTERS } from '../../src/spec/index.ts';
import {
  KEY_READINGS,
  STORED_READINGS,
  finalRow,
  firstMismatch,
  predict,
  rowKey,
  type KeyReading,
  type StoredReading,
  type UsageRequest,
  type UsageRow,
} from './usage-model.ts';

/** 4.3 rule 1. */
export const NEVER_ADDED = specJudgement('usage.never-added', 'Rows are never added up: each keeps the larger of its stored and reported total (observed through stored, under every reading of it).', 'usageNeverAdded');
/** 4.3 rule 2. */
export const IDEMPOTENT = specJudgement('usage.idempotent', 'Sending the same logs again changes nothing (observed through stored, under every reading of it).', 'usageIdempotent');

// Small pools so that keys collide within a case: collisions are where merges happen.
const DAYS = ['2024-02-29', '2025-12-31', '2026-01-01'];
const ASSISTANTS = [CHARSETS.assistant.chars.slice(0, 6), 'x', CHARSETS.assistant.chars.slice(-5)];
const MODELS = ['m', 'model-a 1.5', 'Ω-model'];

export const arbKey = fc.record({
  day: fc.constantFrom(...DAYS),
  assistant: fc.constantFrom(...ASSISTANTS),
  model: fc.constantFrom(...MODELS),
});

const arbCounter = fc.oneof(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 1_000_000 }));

export const arbCounters = fc.record({ input: arbCounter, output: arbCounter, cache_read: arbCounter, cache_write: arbCounter });

export const arbRow: fc.Arbitrary<UsageRow> = fc.tuple(arbKey, arbCounters).map(([k, c]) => ({ ...c, ...k }));

/** `row` with every counter at most its own and the total strictly lower (or equal when all are 0). */
export function lowered(row: UsageRow, cut: readonly number[]): UsageRow {
  const out = { ...row };
  USAGE_COUNTERS.forEach((c, i) => (out[c] = Math.max(0, row[c] - (cut[i] ?? 0))));
  return out;
}

export function raised(row: UsageRow, by = 1): UsageRow {
  return { ...row, input: row.input + by };
}

export const arbCut = fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 4, maxLength: 4 }).filter((a) => a.some((x) => x > 0));

function readings(ctx: CaseContext): { key: KeyReading; stored: StoredReading } {
  return {
    key: ctx.assumptions['usage-row-key'] as KeyReading,
    stored: ctx.assumptions['usage-stored-meaning'] as StoredReading,
  };
}

/**
 * Probes that make a source's final state visible through `stored`: the row it should hold for
 * each key (nothing to raise) and that row with one more input token (a raise).
 */
export function probes(ctx: CaseContext, plan: readonly UsageRequest[], sources: readonly number[]): UsageRequest[] {
  const { key } = readings(ctx);
  const out: UsageRequest[] = [];
  const keys = new Map<string, UsageRow>();
  for (const req of plan) for (const r of req.rows) keys.set(rowKey(r), r);
  for (const source of sources) {
    for (const r of keys.values()) {
      const held = finalRow(plan, source, r, key);
      if (!held) continue;
      out.push({ source, rows: [held] });
      out.push({ source, rows: [raised(held)] });
    }
  }
  return out;
}

function describeRequest(req: UsageRequest): string {
  const rows = req.rows.map((r) => `${r.day}/${r.assistant}/${r.model} total ${USAGE_COUNTERS.map((c) => r[c]).join('+')}`);
  return `source #${req.source + 1} ← [${rows.join('; ')}]`;
}

/**
 * Rows under a key no plan uses, sent first to every source: the row; then the same key with every
 * counter 0; then that zero row twice in one request. The first makes `stored` differ between
 * rows-held (which keeps counting it) and a merge that adds rows up, which would otherwise both
 * answer 1 to every single-row request. The others tell rows-accepted (1, then 2: it counts the rows
 * sent) from a server that counts what it changed, summing or not (a zero report changes nothing, and
 * one key is one row): so a summing server cannot pass for one whose stored counts rows. A server
 * that sums and counts every row it was sent as changed answers exactly as rows-accepted does; no
 * answer of `stored` can tell them apart.
 */
const CALIBRATION: UsageRow = { day: DAYS[0]!, assistant: ASSISTANTS[0]!, model: 'pouchproof calibration', input: 1, output: 0, cache_read: 0, cache_write: 0 };
const CALIBRATION_ZERO: UsageRow = { ...CALIBRATION, input: 0 };

export function calibrated(plan: readonly UsageRequest[]): UsageRequest[] {
  const sources = [...new Set(plan.map((r) => r.source))];
  return [
    ...sources.flatMap((source): UsageRequest[] => [
      { source, rows: [CALIBRATION] },
      { source, rows: [CALIBRATION_ZERO] },
      { source, rows: [CALIBRATION_ZERO, CALIBRATION_ZERO] },
    ]),
    ...plan,
  ];
}

/** Sends the plan (fresh source ids, calibrated) and judges every answer against the model; a contrary answer breaks `rule`. */
export async function runUsagePlan(ctx: CaseContext, bare: readonly UsageRequest[], rule: SpecJudgement = NEVER_ADDED): Promise<Outcome> {
  const b: Blame = { judgement: rule };
  const plan = calibrated(bare);
  const ids = new Map<number, string>();
  const observed: (number | undefined)[] = [];
  for (const [i, req] of plan.entries()) {
    let id = ids.get(req.source);
    if (!id) ids.set(req.source, (id = ctx.sourceId()));
    const sample = { params: { sourceId: id }, body: { rows: req.rows as unknown as Json[] } };
    const ex = await ctx.call({ endpoint: 'reportUsage', ...sample });
    const acc = await judgeServed(ctx, 'reportUsage', sample, ex, { what: `usage request ${i + 1} (${describeRequest(req)})` });
    if (!acc.ok) return acc;
    const stored = dataOf(ex)?.['stored'];
    observed.push(typeof stored === 'number' ? stored : undefined);
  }
  return judgePlan(ctx, plan, observed, b);
}

/**
 * What `stored` tells about the rows, in one place: the answers must follow the model under the
 * run's readings; under another reading of `usage-stored-meaning` or `usage-row-key` they are an
 * assumption finding; under none, `rule` is broken.
 */
export function judgePlan(ctx: CaseContext, plan: readonly UsageRequest[], observed: readonly (number | undefined)[], rule: Blame = { judgement: NEVER_ADDED }): Outcome {
  const chosen = readings(ctx);
  const expected = predict(plan, chosen.key, chosen.stored);
  const i = firstMismatch(observed, expected);
  if (i < 0) return PASS;
  for (const key of KEY_READINGS) {
    for (const stored of STORED_READINGS) {
      if (key === chosen.key && stored === chosen.stored) continue;
      // rows-accepted answers the row count whatever the merge does: under it the laws cannot be
      // observed at all. The zero-row calibration keeps a summing server from passing for it.
      if (firstMismatch(observed, predict(plan, key, stored)) >= 0) continue;
      const name = stored !== chosen.stored ? 'usage-stored-meaning' : 'usage-row-key';
      return assumptionMismatch(
        name,
        `the stored answers follow usage-row-key=${key}, usage-stored-meaning=${stored} instead of ${chosen.key}, ${chosen.stored}`,
      );
    }
  }
  return blame(
    rule,
    `request ${i + 1} of ${plan.length} (${describeRequest(plan[i]!)}) answered stored ${String(observed[i])}, ` +
      `expected ${String(expected[i])} (rows are never added up and keep the larger total; stored read as ${chosen.stored})`,
  );
}
