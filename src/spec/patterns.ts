/**
 * The structured string formats SPEC.md states beyond a length and a charset: the UUID form of 2.2
 * and the day of 2.7. Apart from the limits because a pattern may name a reading of the registry
 * (2.7's "a UTC day"), and the registry's own wording reads the limits.
 */
import type { AssumptionName } from './assumptions.ts';

/** Structured string formats stated in the spec that are more than a length and a charset. */
export interface Pattern {
  readonly regex: RegExp;
  readonly sections: readonly string[];
  readonly text: string;
  /**
   * Set when a value matching the pattern must also name a real calendar day under a reading of
   * the registry (2.7 "a UTC day"): schemas check it, the inventory lists a `calendar` constraint
   * grounded on that reading, and generators draw real days.
   */
  readonly calendarAssumption?: AssumptionName;
}

const HEX = '[0-9a-fA-F]';

/** 2.2: version digit 1..8, variant digit 8, 9, a, b (either case); nil and all-f also accepted. */
export const UUID_VERSIONS = '12345678';
export const UUID_VARIANTS = '89abAB';
export const UUID_NIL = '00000000-0000-0000-0000-000000000000';
export const UUID_MAX = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
/** Group lengths of the 8-4-4-4-12 form. */
export const UUID_GROUPS = [8, 4, 4, 4, 12] as const;

/** Each entry typed as a Pattern (its optional members kept on every one), the names inferred from the table. */
const patternTable = <K extends string>(table: Record<K, Pattern>): Readonly<Record<K, Pattern>> => Object.freeze(table);

export const PATTERNS = patternTable({
  uuid: {
    regex: new RegExp(
      `^(?:${HEX}{${UUID_GROUPS[0]}}-${HEX}{${UUID_GROUPS[1]}}-[${UUID_VERSIONS}]${HEX}{${UUID_GROUPS[2] - 1}}-[${UUID_VARIANTS}]${HEX}{${UUID_GROUPS[3] - 1}}-${HEX}{${UUID_GROUPS[4]}}` +
        `|${UUID_NIL}|${UUID_MAX})$`,
      'i',
    ),
    sections: ['2.2'],
    text: '8-4-4-4-12 hex, version 1-8, variant 8/9/a/b, or nil, or all-f',
  },
  /** 2.7: "20YY-MM-DD": four digits beginning 20, then two digits, two digits. */
  day: { regex: /^20\d{2}-\d{2}-\d{2}$/, sections: ['2.7'], text: '20YY-MM-DD', calendarAssumption: 'day-calendar-valid' },
});

export type PatternName = keyof typeof PATTERNS;

/** The UTC day of a time, written as 2.7's `day` is (YYYY-MM-DD). */
export function utcDayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
