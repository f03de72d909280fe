/**
 * Probes of what 4.3 and the usage row (2.7) leave open, each on a fresh source id: what `stored`
 * counts and which fields key a row (the calibration plan, whose answers differ under every pair of
 * readings and from meanings no reading names),
 * and which row values are accepted (negative counters, days to come, calendar-invalid days,
 * lengths of astral text). A plain usage report is known to be accepted before any of them runs,
 * so a refusal is the varied value's.
 */
import { LIMITS, utcDayOf, type ReadingOf } from '../spec/index.ts';
import { calibrationPlan, fittingPairs } from '../check/model/usage-model.ts';
import { plainDay } from '../check/model/plain.ts';
import { usageRow, type UsageRowSpec } from './build.ts';
import { answerOf, integerIn, type Answer, type Scope } from './env.ts';
import { choicesOf, decide, notObservable, unknown, verdict, type ProbeResult } from './result.ts';

const DAY_MS = 86_400_000;

export const NO_USAGE_CALLER = 'the profile has no command-line device (accounts.primary.device) to report usage with';

async function report(scope: Scope, what: string, sourceId: string, rows: readonly Record<string, unknown>[], extra: Record<string, unknown> = {}) {
  return scope.send(what, { endpoint: 'reportUsage', params: { sourceId }, body: { rows, ...extra } });
}

async function reportOne(scope: Scope, what: string, row: UsageRowSpec & { input?: number }): Promise<Answer> {
  const r = { ...usageRow(row), ...(row.input !== undefined ? { input: row.input } : {}) };
  return answerOf(await report(scope, what, scope.env.sourceId(), [r]));
}

/**
 * usage-stored-meaning and usage-row-key: the calibration plan's three reports on one fresh source
 * (usage-model.ts), whose answers differ under every pair of readings and from every meaning no
 * reading names. A pair is identified only when it alone fits; answers no pair gives are "none of
 * the known readings", with the answers as evidence.
 */
export async function probeStored(scope: Scope): Promise<ProbeResult[]> {
  const plan = calibrationPlan(0, { recent: plainDay(), older: plainDay(Date.now() - DAY_MS) });
  const source = scope.env.sourceId();
  const observed: (number | undefined)[] = [];
  for (const [i, req] of plan.entries()) {
    const ex = await report(scope, `calibration report ${i + 1} of ${plan.length}`, source, req.rows);
    observed.push(answerOf(ex) === 'accepted' ? integerIn(ex, 'stored') : undefined);
  }
  if (observed.some((o) => o === undefined)) {
    const why = 'a calibration report was not accepted or answered no integer stored';
    return [unknown('usage-stored-meaning', why, scope.evidence), unknown('usage-row-key', why, scope.evidence)];
  }
  const detail = `stored ${observed.join(', ')}`;
  const pairs = fittingPairs(plan, observed);
  if (pairs.length === 0) {
    const why = `stored answered ${observed.join(', ')} to reports whose answers differ under every known reading: none of them (${STORED_CHOICES}) fits`;
    return [unknown('usage-stored-meaning', why, scope.evidence), unknown('usage-row-key', why, scope.evidence)];
  }
  const meanings = [...new Set(pairs.map((x) => x.stored))];
  const stored = decide('usage-stored-meaning', meanings, scope.evidence, detail);
  if (meanings.length === 1 && meanings[0] === 'rows-accepted') {
    return [stored, notObservable('usage-row-key', 'stored counts the rows sent (rows-accepted), which no merge changes', scope.evidence)];
  }
  return [stored, decide('usage-row-key', [...new Set(pairs.map((x) => x.key))], scope.evidence, detail)];
}

const STORED_CHOICES = choicesOf('usage-stored-meaning').join(', ');

/** usage-counters-negative: a row with input -1. 1 request. */
export async function probeNegative(scope: Scope): Promise<ProbeResult[]> {
  const a = await reportOne(scope, 'a row with input -1', { input: -1, total: 0 });
  return [verdict(scope.evidence, 'usage-counters-negative', a, 'accepted', 'rejected')];
}

/** usage-day-window: a row two days ahead of the current UTC day (clear of clock skew). 1 request. */
export async function probeDayWindow(scope: Scope): Promise<ProbeResult[]> {
  const day = utcDayOf(Date.now() + 2 * DAY_MS);
  const a = await reportOne(scope, `a row of day ${day} (two days ahead)`, { day });
  return [verdict(scope.evidence, 'usage-day-window', a, 'any-day', 'not-future')];
}

/** day-calendar-valid: February 30 of last year. 1 request. */
export async function probeCalendar(scope: Scope): Promise<ProbeResult[]> {
  const day = `${Number(plainDay().slice(0, 4)) - 1}-02-30`;
  const a = await reportOne(scope, `a row of day ${day}`, { day });
  return [verdict(scope.evidence, 'day-calendar-valid', a, 'pattern-only', 'calendar')];
}

/** An astral character: 1 code point, 2 UTF-16 units, 4 UTF-8 bytes. */
const ASTRAL = '\u{1F600}';

/**
 * characters-are-code-points: models of one astral character (a control every reading accepts),
 * of the model maximum in astral characters (only code points fit), and of half of it (UTF-16
 * units fit, bytes do not). 3 requests.
 */
export async function probeCharacters(scope: Scope): Promise<ProbeResult[]> {
  const max = LIMITS.modelLength.max;
  const half = Math.floor(max / 2);
  const answers = await Promise.all([
    reportOne(scope, 'a model of 1 astral character (control)', { model: ASTRAL }),
    reportOne(scope, `a model of ${max} astral characters (${max} code points, ${2 * max} UTF-16 units, ${4 * max} bytes)`, { model: ASTRAL.repeat(max) }),
    reportOne(scope, `a model of ${half} astral characters (${2 * half} UTF-16 units, ${4 * half} bytes)`, { model: ASTRAL.repeat(half) }),
  ]);
  if (answers.includes('inconclusive')) return [unknown('characters-are-code-points', 'a request was answered with a 5xx, no answer or a broken envelope', scope.evidence)];
  if (answers[0] !== 'accepted') return [unknown('characters-are-code-points', 'a model of one astral character is refused: the target refuses such text whatever its length', scope.evidence)];
  const accepts: { readonly [R in ReadingOf<'characters-are-code-points'>]: readonly boolean[] } = {
    codepoints: [true, true],
    utf16: [false, true],
    bytes: [false, false],
  };
  const ok = answers.slice(1).map((a) => a === 'accepted');
  return [decide('characters-are-code-points', choicesOf('characters-are-code-points').filter((r) => accepts[r].every((x, i) => x === ok[i])), scope.evidence)];
}
