/**
 * Days for the 2.7 `day` field: real calendar days only (assumption `day-calendar-valid`), in the
 * years the model's pattern admits. The year range is read off the pattern itself rather than
 * restated, so a change of the pattern moves the generator with it.
 */
import fc from 'fast-check';
import { PATTERNS, isCalendarDay, utcDayOf } from '../spec/index.ts';

export function formatDay(y: number, m: number, d: number): string {
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

function yearRange(): { first: number; last: number } {
  let first = Infinity;
  let last = -Infinity;
  for (let y = 0; y <= 9999; y++) {
    if (PATTERNS.day.regex.test(formatDay(y, 1, 1))) {
      first = Math.min(first, y);
      last = Math.max(last, y);
    }
  }
  return { first, last };
}

export const DAY_YEARS = yearRange();

export function daysInMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

export function isLeap(y: number): boolean {
  return daysInMonth(y, 2) === 29;
}

const leapYears = Array.from({ length: DAY_YEARS.last - DAY_YEARS.first + 1 }, (_, i) => DAY_YEARS.first + i).filter(isLeap);
const nonLeapYears = Array.from({ length: DAY_YEARS.last - DAY_YEARS.first + 1 }, (_, i) => DAY_YEARS.first + i).filter((y) => !isLeap(y));

export const FIRST_DAY = formatDay(DAY_YEARS.first, 1, 1);
export const LAST_DAY = formatDay(DAY_YEARS.last, 12, 31);

/**
 * The current UTC day: under `usage-day-window=not-future` the last day accepted, so a check written
 * `day >= today` shows only here. No margin is kept around midnight: a target whose clock runs
 * behind this machine's by s seconds would see it as tomorrow for s seconds after midnight, which
 * with clocks kept by NTP is a fraction of a second; a margin would instead make the defect
 * unobservable for as long, and the embedded reference's kill of it depend on the time of day.
 */
export function currentUtcDay(now: number = Date.now()): string {
  return utcDayOf(now);
}

const yearArb = fc.integer({ min: DAY_YEARS.first, max: DAY_YEARS.last });

export const randomDay: fc.Arbitrary<string> = fc
  .record({ y: yearArb, m: fc.integer({ min: 1, max: 12 }), d: fc.integer({ min: 1, max: 31 }) })
  .map(({ y, m, d }) => formatDay(y, m, Math.min(d, daysInMonth(y, m))));

export const leapDay: fc.Arbitrary<string> = fc.constantFrom(...leapYears).map((y) => formatDay(y, 2, 29));

/** Calendar days biased to the first and last the pattern allows, Feb 29 and month ends. */
export const edgeDay: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: randomDay },
  { weight: 1, arbitrary: fc.constantFrom(FIRST_DAY, LAST_DAY) },
  { weight: 1, arbitrary: leapDay },
  {
    weight: 1,
    arbitrary: fc.record({ y: yearArb, m: fc.integer({ min: 1, max: 12 }) }).map(({ y, m }) => formatDay(y, m, daysInMonth(y, m))),
  },
);

/** A year the pattern admits that is not a leap year (for "Feb 29 of a common year"). */
export const commonYear: fc.Arbitrary<number> = fc.constantFrom(...nonLeapYears);
export const anyYear = yearArb;

export { isCalendarDay };
