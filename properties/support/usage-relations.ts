/**
 * 4.3's two rules judged without knowing what `stored` means (4.3: "the exact meaning of stored: not
 * shown"), as relations between the target's own answers (metamorphic testing: Segura et al., TSE
 * 2018). Two fresh sources are sent histories that rules 1 and 2 say end holding the same rows, each
 * history as many reports long; then both are sent the same reports (the tail). Whatever `stored`
 * counts, as long as it depends on the rows a source holds, the report, and how many reports came
 * before, the two tails answer alike. Under a merge that sums, or keeps the last write, the rows
 * differ, and wherever `stored` shows rows at all, the tails part.
 *
 * Determinism first: the right history and the tail, sent to a third fresh source, must answer as they
 * did the first time. If they do not (`stored` is a clock, a global counter), stored depends on more
 * than the relation allows and the case says so as unknown, with the two answers.
 *
 * And sight: the tail must tell the rows apart. A fourth source is sent the right history with every
 * report raised by two tokens, so it holds more of each row; where its tail answers as the left's
 * does, stored shows nothing of the totals held (it counts reports, or rows inserted), equal tails
 * prove nothing, and the case is unknown rather than a pass.
 *
 * Used where the calibration fits no known reading of `stored` (support/usage.ts): the properties
 * judge by the model where they can, and by these relations where the model has nothing to go on.
 */
import { judgeServed } from '../../src/check/judge/controls.ts';
import { blame, type Blame } from '../../src/check/judge/judge.ts';
import { resentAfterNoAnswer, withData, type Exchange } from '../../src/target/client.ts';
import { READING_FREE, specJudgement } from '../../src/check/judge/judgements.ts';
import { markResent, resentAt, rowKey, type StoredAnswers, type UsageRow } from '../../src/check/model/usage-model.ts';
import { PASS, unknownOutcome, type CaseContext, type Outcome } from '../../src/check/property.ts';
import { LIMITS, USAGE_COUNTERS, usageTotal } from '../../src/spec/index.ts';
import { releasedTogether } from './together.ts';

/** Rule 1 as a relation: it reads no reading. */
export const NEVER_ADDED_RELATION = specJudgement(
  'usage.never-added-relation',
  'Two sources that rule 1 says hold the same rows (one was sent a lower or a reordered total, the other not) answer the same later reports alike, whatever stored counts.',
  'usageNeverAdded',
  READING_FREE,
);
/** Rule 2 as a relation: it reads no reading. */
export const IDEMPOTENT_RELATION = specJudgement(
  'usage.idempotent-relation',
  'A source sent a report again answers the same later reports as one sent it once (then a report of zeros for its rows), whatever stored counts.',
  'usageIdempotent',
  READING_FREE,
);

type Report = readonly UsageRow[];

export interface UsageRelation {
  /** Whom a parting blames: a law of its own clause, or a constraint judgement with the judged constraint's clause. */
  readonly law: Blame;
  /** Why the two histories end holding the same rows, in the spec's terms. */
  readonly because: string;
  readonly left: readonly Report[];
  /** As many reports as `left`. */
  readonly right: readonly Report[];
  /** Sent to both afterwards; their answers are compared. */
  readonly tail: readonly Report[];
  /** The left history's reports (one row each) are sent at once, racing; the right one is always sent in order. */
  readonly leftTogether?: boolean;
  /** The sight control's history, as many reports as `right` (default: `right` raised by two tokens): a source holding what a broken law would leave on the left. */
  readonly more?: readonly Report[];
}

/** A row no generator draws (its day and assistant are the case's own), all zeros. */
const OBSERVER: UsageRow = { day: '2023-06-15', assistant: 'pouchproof-observer', model: 'observer', input: 0, output: 0, cache_read: 0, cache_write: 0 };


/** The same rows with every counter 0: rule 1 keeps whatever is held. */
export const zeroed = (rows: Report): Report => rows.map((r) => ({ ...r, ...Object.fromEntries(USAGE_COUNTERS.map((c) => [c, 0])) }));

/** The same rows, each holding `by` tokens more, in the first counter with room below 8's maximum (a row at the maximum in every counter stays as it is). */
export const raisedBy = (rows: Report, by = 1): Report =>
  rows.map((r) => {
    const c = USAGE_COUNTERS.find((k) => r[k] + by <= (LIMITS.usageCounter.max ?? Number.MAX_SAFE_INTEGER));
    return c ? { ...r, [c]: r[c] + by } : r;
  });

/**
 * Whether the order of these rows decides what is held: two rows of one day and assistant (the
 * coarsest key a reading names) with equal totals but not the same row. Rule 1 keeps "the larger",
 * and says nothing of a tie, so no relation over reorderings is exact then.
 */
export function tiesDecideOrder(rows: Report): boolean {
  const seen = new Map<string, UsageRow[]>();
  for (const r of rows) {
    const k = `${r.day}\n${r.assistant}\n${usageTotal(r)}`;
    const same = seen.get(k) ?? [];
    if (same.some((x) => rowKey(x) !== rowKey(r) || USAGE_COUNTERS.some((c) => x[c] !== r[c]))) return true;
    seen.set(k, [...same, r]);
  }
  return false;
}

/** One report of every distinct row's key, raised by one, then the rows again: reports whose answers show what is held. */
export function probeTail(rows: Report): Report[] {
  const byKey = new Map<string, UsageRow>();
  for (const r of rows) {
    const held = byKey.get(rowKey(r));
    if (!held || usageTotal(r) > usageTotal(held)) byKey.set(rowKey(r), r);
  }
  const top = [...byKey.values()];
  return [raisedBy(top), top];
}

/** Reports `rows` on `sourceId`: PASS with its `stored` put in `answers`, or what the refusal comes to. */
export async function reportRows(ctx: CaseContext, sourceId: string, rows: Report, what: string, answers: StoredAnswers): Promise<Outcome> {
  const request = { params: { sourceId }, body: { rows: [...rows] } };
  const ex = await ctx.send('reportUsage', request);
  const served = await judgeServed(ctx, 'reportUsage', request, ex, { what });
  if (served.ok) keepAnswer(answers, ex.data?.stored, ex);
  return served;
}

/** Keeps an answer's stored, marked when it answered a copy sent again after no answer (usage-model.ts `StoredAnswers`). */
export function keepAnswer(answers: StoredAnswers, stored: number | undefined, ex: Exchange): void {
  answers.push(stored);
  if (resentAfterNoAnswer(ex)) markResent(answers, answers.length - 1);
}

/** Sends each row in its own request at once: the last byte of every body held back, then released together. */
export function reportTogether(ctx: CaseContext, sourceId: string, rows: readonly UsageRow[]): Promise<Exchange[]> {
  return releasedTogether(ctx, rows.length, (i, hold) => ctx.call({ endpoint: 'reportUsage', params: { sourceId }, body: { rows: [rows[i]] }, ...hold }));
}

const show = (xs: readonly (number | undefined)[]) => xs.map(String).join(', ');

/** Reports sent at once on `sourceId`, each row its own request: PASS with their `stored` put in `answers`, or the first refusal's outcome. */
export async function reportRaced(ctx: CaseContext, sourceId: string, rows: readonly UsageRow[], answers: StoredAnswers): Promise<Outcome> {
  const exchanges = await reportTogether(ctx, sourceId, rows);
  for (const [i, ex] of exchanges.entries()) {
    const request = { params: { sourceId }, body: { rows: [rows[i]] } };
    const served = await judgeServed(ctx, 'reportUsage', request, ex, { what: `concurrent report ${i + 1} of ${rows.length}` });
    if (!served.ok) return served;
    if (ex.verdict === 'accepted') keepAnswer(answers, withData<'reportUsage'>(ex).data?.stored, ex);
  }
  return PASS;
}

type Source = 'left' | 'right' | 'again' | 'more';

/**
 * Sends the relation to four fresh sources and judges it (see the file's comment). `leftSource`: the
 * left history goes to a source already sent what the relation is about (a refused report) instead.
 */
export async function judgeRelation(ctx: CaseContext, relation: UsageRelation, o: { readonly leftSource?: string } = {}): Promise<Outcome> {
  // The tail opens with a row of a key the case never names, all zeros: it changes no total, and where
  // stored adds up what the source holds, its answer shows the rows the histories left.
  const rel = { ...relation, tail: [[OBSERVER], ...relation.tail] };
  const more = relation.more ?? relation.right.map((r) => raisedBy(r, 2));
  const sources: Record<Source, string> = { left: o.leftSource ?? ctx.sourceId(), right: ctx.sourceId(), again: ctx.sourceId(), more: ctx.sourceId() };
  const answers: Record<Source, StoredAnswers> = { left: [], right: [], again: [], more: [] };
  const send = (s: Source, rows: Report, what: string) => reportRows(ctx, sources[s], rows, what, answers[s]);
  // The right history is sent one report at a time: it is the control for determinism (again) and for sight (more).
  for (const [i, rows] of rel.right.entries()) {
    for (const [s, sent, what] of [['right', rows, 'right history'], ['again', rows, 'right history, to a second fresh source'], ['more', more[i], 'the sight control\'s history']] as const) {
      const o = await send(s, sent, `${what}, report ${i + 1}`);
      if (!o.ok) return o;
    }
  }
  const left = rel.leftTogether
    ? await reportRaced(ctx, sources.left, rel.left.map((r) => r[0]), answers.left)
    : await sequentially(rel.left.map((rows, i) => () => send('left', rows, `left history report ${i + 1}`)));
  if (!left.ok) return left;
  for (const [i, rows] of rel.tail.entries()) {
    for (const s of ['left', 'right', 'again', 'more'] as const) {
      const o = await send(s, rows, `common report ${i + 1} to the ${s} source`);
      if (!o.ok) return o;
    }
  }
  if (partsAt(answers.right, answers.again, 0) >= 0) {
    return unknownOutcome(`one history sent to two fresh sources answered stored ${show(answers.right)} and ${show(answers.again)}: stored depends on more than the rows held, the report and the reports before it, so no relation between two sources can be judged`);
  }
  const n = rel.left.length;
  const [lt, rt] = [answers.left.slice(n), answers.right.slice(n)];
  if (partsAt(answers.right, answers.more, n) < 0) {
    return unknownOutcome(`the common reports answered stored ${show(rt)} on a source holding the rows and on one holding ${relation.more ? 'what a broken law would leave' : 'two tokens more of each'}: stored shows nothing of the totals held here, so equal answers would prove nothing`);
  }
  const parted = partsAt(answers.left, answers.right, n);
  if (parted < 0) return PASS;
  const at = parted - n;
  return blame(
    rel.law,
    `${rel.because}; yet the same report (${describe(rel.tail[at])}) then answered stored ${String(lt[at])} on the first and ${String(rt[at])} on the second ` +
      `(histories ${describeAll(rel.left)}${rel.leftTogether ? ' sent at once' : ''} | ${describeAll(rel.right)}; the second history answered the same on a third fresh source, so stored follows what the source holds)`,
    // Expected: what the source rule 1 and 2 say holds the same rows answered.
    { mismatch: { subject: 'data.stored', expected: rt[at] ?? null, observed: lt[at] ?? null } },
  );
}

/**
 * The first index from `from` at which two sources' answers part, or -1. An answer to a report sent
 * again after no answer (under the nemesis) may be the replay's: it is compared with nothing, and the
 * answers after it judge the state it left.
 */
function partsAt(a: StoredAnswers, b: StoredAnswers, from: number): number {
  for (let i = from; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i] && !resentAt(a, i) && !resentAt(b, i)) return i;
  }
  return -1;
}

async function sequentially(steps: readonly (() => Promise<Outcome>)[]): Promise<Outcome> {
  for (const step of steps) {
    const o = await step();
    if (!o.ok) return o;
  }
  return PASS;
}

function describe(rows: Report): string {
  return rows.map((x) => `${x.day}/${x.assistant}/${x.model} total ${usageTotal(x)}`).join('; ');
}

function describeAll(reports: readonly Report[]): string {
  return reports.map((x) => `[${describe(x)}]`).join(' then ');
}
