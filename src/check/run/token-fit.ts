/**
 * Whether a replay token still names the case it was made for, here: under the same readings, from
 * the same list of cases. A token that cannot be shown to fit is not run at all (one line says why),
 * since replaying whatever case now sits at its place would report on another case without a word.
 *
 * What a token carries to be checked against is token-stamp.ts's.
 */
import { DEFAULT_ASSUMPTIONS } from '../../spec/index.ts';
import type { Profile } from '../../target/profile.ts';
import type { Property } from '../property.ts';
import { coverageCasesOf, coverageIndex } from './coverage-phase.ts';
import type { ReplayToken } from './replay-token.ts';
import { coverageInventory, drawnInventory, readingsStamp } from './token-stamp.ts';
import { toolVersion } from './tool-version.ts';

export type Fit = { readonly fits: true; readonly path: string } | { readonly fits: false; readonly why: string };

/** Whether `t` names the same case of `prop` against `profile`, and the path to run it by (a coverage case's by its index now). */
export function tokenFit(prop: Property, profile: Profile, t: ReplayToken, current = toolVersion()): Fit {
  const no = (why: string): Fit => ({ fits: false, why });
  const readings: Readonly<Record<string, string>> = profile.assumptions;
  if (t.readings && readingsStamp(readings).digest !== t.readings.digest) return no(`the readings differ: ${readingsDiff(t.readings.differ, readings)}`);
  const made = t.tool === undefined ? 'a version of pouchproof from before tokens named theirs' : `pouchproof ${t.tool}`;
  const index = coverageIndex(t.path);
  if (t.path === 'c' || index !== undefined) {
    const { cases, error } = coverageCasesOf(prop, profile);
    if (error) return no(error);
    if (t.coverageCase) {
      const k = t.coverageCase;
      const at = cases.findIndex((c) => c.constraint === k.constraint && c.side === k.side && c.variant === k.variant);
      if (at < 0) return no(`its coverage case (${k.variant} of ${k.constraint}, ${k.side}) is gone`);
      if (t.inventory !== undefined && coverageInventory(cases) !== t.inventory) return no("the property's coverage cases changed since it was made");
      return { fits: true, path: `c${at}` };
    }
    // Decoded tokens never get here: the decoder refuses a `c` path without its case's name.
    if (index === undefined) return no('a coverage case without its name');
    const at = index;
    if (t.tool !== current) return no(`it names coverage case ${at} by its index, made by ${made}: which case that is now cannot be told`);
    return at < cases.length ? { fits: true, path: t.path } : no(`its coverage case ${at} is gone`);
  }
  if (t.inventory === undefined) return t.tool === current ? { fits: true, path: t.path } : no(`made by ${made} without a fingerprint of its cases: that its seed still draws the same case cannot be told`);
  try {
    if (drawnInventory(prop.arbitrary(profile), t.seed, t.path) !== t.inventory) return no('the cases its seed draws changed since it was made');
  } catch (e) {
    return no(`pouchproof could not build the property's cases: ${e instanceof Error ? e.message : String(e)}`);
  }
  return { fits: true, path: t.path };
}

/** Which readings differ between a token's and the run's, in a few words. */
function readingsDiff(then: Readonly<Record<string, string>>, now: Readonly<Record<string, string>>): string {
  const defaults: Readonly<Record<string, string>> = DEFAULT_ASSUMPTIONS;
  const names = [...new Set([...Object.keys(then), ...Object.keys(now)])].sort();
  const diff = names.filter((n) => (then[n] ?? defaults[n]) !== now[n]).map((n) => `${n} was ${then[n] ?? defaults[n] ?? '(none)'}, is ${now[n] ?? '(none)'}`);
  return diff.length ? `${diff.slice(0, 3).join('; ')}${diff.length > 3 ? ` and ${diff.length - 3} more` : ''}` : "the registry's defaults changed since it was made";
}
