/**
 * Running and judging a usage plan (4.3): every request must be accepted (the rows are valid by
 * the letter under every reading), and the `stored` answers must follow the model under the
 * profile's readings. A run that follows another row-key reading, or the rows-held meaning of
 * `stored`, is an assumption mismatch; anything else is a violation.
 */
import fc from 'fast-check';
import { assumptionMismatch, blame, type Blame } from '../../src/check/judge/judge.ts';
import { specJudgement, type ReadsDeclaration, type SpecJudgement } from '../../src/check/judge/judgements.ts';
import { plainDay } from '../../src/check/model/plain.ts';
import { PASS, unknownOutcome, type CaseContext, type Outcome } from '../../src/check/property.ts';
import { CHARSETS, USAGE_COUNTERS } from '../../src/spec/index.ts';
import {
  USAGE_READING_PAIRS,
  type StoredAnswers,
  blindTo,
  calibrationPlan,
  finalRow,
  firstMismatch,
  fittingPairs,
  predict,
  rowKey,
  type KeyReading,
  type StoredReading,
  type UsageRequest,
  type UsageRow,
} from '../../src/check/model/usage-model.ts';
import { judgeRelation, reportRows, type UsageRelation } from './usage-relations.ts';

// Judged by the model under the readings the calibration identifies: what a row is and what stored
// counts decide the expected answers; the rows sent are valid under every other reading (a refusal is
// the shared judgements' business).
const MODEL_READS: ReadsDeclaration = { reads: ['usage-row-key', 'usage-stored-meaning'] };
/** 4.3 rule 1. */
export const NEVER_ADDED = specJudgement('usage.never-added', 'Rows are never added up: each keeps the larger of its stored and reported total (observed through stored, under every reading of it).', 'usageNeverAdded', MODEL_READS);
/** 4.3 rule 2. */
export const IDEMPOTENT = specJudgement('usage.idempotent', 'Sending the same logs again changes nothing (observed through stored, under every reading of it).', 'usageIdempotent', MODEL_READS);

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
  for (const [i, c] of USAGE_COUNTERS.entries()) out[c] = Math.max(0, row[c] - (cut[i] ?? 0));
  return out;
}

export function raised(row: UsageRow, by = 1): UsageRow {
  return { ...row, input: row.input + by };
}

export const arbCut = fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 4, maxLength: 4 }).filter((a) => a.some((x) => x > 0));

export function readings(ctx: CaseContext): { key: KeyReading; stored: StoredReading } {
  return {
    key: ctx.assumptions['usage-row-key'],
    stored: ctx.assumptions['usage-stored-meaning'],
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
 * Every source of a plan is calibrated first (usage-model.ts `calibrationPlan`): three reports whose
 * `stored` answers differ under every pair of readings and from meanings no reading names. The
 * answers identify the reading the case is judged under: the run's own (a pass or a violation), a
 * known other one (the laws checked under it: an assumption finding), or none (unknown). A summing
 * server answers the calibration as a correct one of its meaning does, and breaks the laws after it.
 */
export function calibrated(plan: readonly UsageRequest[]): UsageRequest[] {
  return [...calibrationOf(plan), ...plan];
}

/** The calibration reports of every source of a plan, in the order they are sent. */
function calibrationOf(plan: readonly UsageRequest[]): UsageRequest[] {
  const days = calibrationDays();
  return [...new Set(plan.map((r) => r.source))].flatMap((source) => calibrationPlan(source, days));
}

const DAY_MS = 86_400_000;

/** The two days a calibration writes under: today and yesterday, so its rows never share a key with the generated ones. */
export const calibrationDays = () => ({ recent: plainDay(), older: plainDay(Date.now() - DAY_MS) });

export interface PlanOptions {
  /** The law a contrary answer breaks (default rule 1). */
  readonly rule?: SpecJudgement;
  /** Sources whose final rows are probed after the plan (`probes`, under the run's key reading). */
  readonly probe?: readonly number[];
  /** Judged instead, where the calibration fits no known reading of stored (support/usage-relations.ts). */
  readonly relation?: UsageRelation;
}

/**
 * Sends the plan (fresh source ids, calibrated) and judges every answer against the model; a
 * contrary answer breaks `o.rule`. The calibration goes first: where it fits no known reading, the
 * model has nothing to go on and the case is the relation's, which reads no reading at all (the
 * run's readings are consulted only past that point).
 */
export async function runUsagePlan(ctx: CaseContext, bare: readonly UsageRequest[], o: PlanOptions = {}): Promise<Outcome> {
  const b: Blame = { judgement: o.rule ?? NEVER_ADDED };
  const calibration = calibrationOf(bare);
  const { send, observed } = planSender(ctx);
  for (const [i, req] of calibration.entries()) {
    const acc = await send(req, i);
    if (!acc.ok) return acc;
  }
  if (fittingPairs(calibration, observed).length === 0) {
    return o.relation ? judgeRelation(ctx, o.relation) : noReadingFits(observed, 'no answer about the rows can be judged');
  }
  const rest = [...bare, ...(o.probe ? probes(ctx, bare, o.probe) : [])];
  for (const [i, req] of rest.entries()) {
    const acc = await send(req, calibration.length + i);
    if (!acc.ok) return acc;
  }
  return judgePlan(ctx, [...calibration, ...rest], observed, b, calibration.length, { mergeLaw: true });
}

/** Sends a plan's requests one by one (a fresh source id per plan source), keeping each accepted answer's `stored`. */
function planSender(ctx: CaseContext): { send: (req: UsageRequest, i: number) => Promise<Outcome>; observed: StoredAnswers } {
  const ids = new Map<number, string>();
  const observed: StoredAnswers = [];
  const send = async (req: UsageRequest, i: number): Promise<Outcome> => {
    let id = ids.get(req.source);
    if (!id) ids.set(req.source, (id = ctx.sourceId()));
    return reportRows(ctx, id, req.rows, `usage request ${i + 1} (${describeRequest(req)})`, observed);
  };
  return { send, observed };
}

/**
 * Calibrates one fresh source, reading none of the run's readings: whether the target's `stored` fits
 * a known reading (the model can judge) or none (only relations can), or what a refusal came to.
 */
export async function storedFitsAReading(ctx: CaseContext): Promise<{ readonly fits: boolean } | { readonly outcome: Outcome }> {
  const calibration = calibrationOf([{ source: 0, rows: [] }]);
  const { send, observed } = planSender(ctx);
  for (const [i, req] of calibration.entries()) {
    const acc = await send(req, i);
    if (!acc.ok) return { outcome: acc };
  }
  return { fits: fittingPairs(calibration, observed).length > 0 };
}

const same = (a: readonly (number | undefined)[], b: readonly (number | undefined)[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * What `stored` tells about the rows, in one place. With `calibration` leading requests, the reading
 * is identified from their answers: none fits, unknown; the run's own fits, the plan is judged under
 * it; another one alone fits, the laws are judged under that one (an assumption finding when they
 * hold). Without calibration (a single report on a fresh source), the run's readings are taken as
 * the probe identified them.
 */
/** The calibration's answers fit no known reading: `what` says what cannot be judged. */
export function noReadingFits(answers: readonly (number | undefined)[], what: string): Outcome {
  return unknownOutcome(`stored answered ${answers.join(', ')} to calibration reports whose answers differ under every known reading of usage-stored-meaning and usage-row-key: none of them fits, so ${what}`);
}

export function judgePlan(
  ctx: CaseContext,
  plan: readonly UsageRequest[],
  observed: StoredAnswers,
  rule: Blame = { judgement: NEVER_ADDED },
  calibration = 0,
  // A case judging how rows merge (4.3's rules) vouches only where stored would have answered a wrong merge otherwise.
  o: { readonly mergeLaw?: boolean } = {},
): Outcome {
  const chosen = readings(ctx);
  const predicted = (p: { key: KeyReading; stored: StoredReading }) => predict(plan, p.key, p.stored);
  const fitCalibration = calibration > 0 ? fittingPairs(plan.slice(0, calibration), observed) : USAGE_READING_PAIRS.filter((p) => p.key === chosen.key && p.stored === chosen.stored);
  if (fitCalibration.length === 0) {
    return noReadingFits(observed.slice(0, calibration), 'no answer about the rows can be judged');
  }
  // Readings that predict the same for the whole plan are one reading as far as this case goes (the key under rows-accepted).
  const distinct = fitCalibration.filter((p, i) => fitCalibration.findIndex((q) => same(predicted(q), predicted(p))) === i);
  const own = distinct.find((p) => same(predicted(p), predicted(chosen)));
  if (!own && distinct.length > 1) {
    return unknownOutcome(`the calibration answers (${observed.slice(0, calibration).join(', ')}) fit several readings of stored (${distinct.map((p) => `${p.key}/${p.stored}`).join('; ')}) and not the run's: nothing tells them apart`);
  }
  const judgedUnder = own ?? distinct[0];
  const expected = predicted(judgedUnder);
  const i = firstMismatch(observed, expected, { plan, ...judgedUnder });
  if (i < 0 && o.mergeLaw && blindTo(plan, judgedUnder.key, judgedUnder.stored)) {
    return unknownOutcome(`stored, read as ${judgedUnder.stored} (rows keyed by ${judgedUnder.key}), answers these reports alike whether rows keep the larger total, are added up or keep the last write: it shows nothing of 4.3's rules here, so answers that match vouch for nothing`);
  }
  if (i < 0) {
    if (own) return PASS;
    return { ...assumptionMismatch(judgedUnder.stored !== chosen.stored ? 'usage-stored-meaning' : 'usage-row-key', `the calibration identifies usage-row-key=${judgedUnder.key}, usage-stored-meaning=${judgedUnder.stored} instead of ${chosen.key}, ${chosen.stored}; the rows follow 4.3 under it`), checked: true };
  }
  if (calibration === 0) {
    // No calibration: another reading that fits every answer is the target's reading, not a broken law.
    for (const p of USAGE_READING_PAIRS) {
      if (p.key === chosen.key && p.stored === chosen.stored) continue;
      if (firstMismatch(observed, predicted(p), { plan, ...p }) >= 0) continue;
      return assumptionMismatch(p.stored !== chosen.stored ? 'usage-stored-meaning' : 'usage-row-key', `the stored answers follow usage-row-key=${p.key}, usage-stored-meaning=${p.stored} instead of ${chosen.key}, ${chosen.stored}`);
    }
  }
  const ambiguous = ambiguousCalibration(plan, observed, calibration);
  if (ambiguous) return ambiguous;
  return blame(
    rule,
    `request ${i + 1} of ${plan.length} (${describeRequest(plan[i])}) answered stored ${String(observed[i])}, ` +
      `expected ${String(expected[i])} (rows are never added up and keep the larger total; stored read as ${judgedUnder.stored}, rows keyed by ${judgedUnder.key}${calibration ? ', as the calibration identified' : ''})`,
    { mismatch: { subject: 'data.stored', expected: expected[i] ?? null, observed: observed[i] ?? null } },
  );
}

/**
 * A calibration answered by copies sent twice (the nemesis: a retry, a duplicate) may fit a reading
 * it would not have fitted from single copies; when some reading fits every answer of the plan, the
 * mismatch is that misidentification, not a broken law: unknown. Undefined otherwise.
 */
function ambiguousCalibration(plan: readonly UsageRequest[], observed: StoredAnswers, calibration: number): Outcome | undefined {
  if (![...(observed.resent ?? [])].some((j) => j < calibration)) return undefined;
  const fits = USAGE_READING_PAIRS.find((p) => firstMismatch(observed, predict(plan, p.key, p.stored), { plan, ...p }) < 0);
  if (!fits) return undefined;
  return unknownOutcome(`the calibration was answered by copies sent twice (the nemesis), and every answer of the case fits usage-row-key=${fits.key}, usage-stored-meaning=${fits.stored}: the reading the case was judged under may be the copies' misreading, not the target's`);
}
