/**
 * What a run against a correct server may show: every property ran all its planned cases to a
 * pass, or was skipped for a capability the profile truly lacks, and no finding was raised but such
 * a skip. The suite's own tests hold every run against the correct reference to this (the per-area
 * suites, the kill matrix's clean seeds, the readings zoo), so that a property that throws on some
 * cases, or a reference that hangs on some requests, cannot pass for clean. Written as "anything but
 * an expected skip", never as a list of bad kinds: a finding kind added later counts at once.
 */
import type { Profile } from '../target/profile.ts';
import { counterexampleText, missingCapabilities, plannedRuns, type Finding, type PropertyResult, type RunFindingKind } from './run/index.ts';
import type { Property } from './property.ts';

/** One reason a run is not clean: a finding, or a property that did not run its planned cases to a pass (`incomplete`). */
export interface CleanProblem {
  readonly property: string;
  readonly kind: RunFindingKind | 'incomplete';
  readonly message: string;
  readonly assumption?: string;
  readonly replay?: string;
  readonly counterexample?: string;
}

export interface CleanOptions {
  /** The profile the run used (what it lacks decides which skips are expected). */
  readonly profile: Profile;
  readonly embedded: boolean;
  /** The run's `--runs`. */
  readonly runs: number;
  /** Findings the caller allows besides expected skips (the zoo's assumption findings under a reading it was not told). */
  readonly allow?: (f: Finding) => boolean;
  /** Properties the caller allows to be inconclusive (the zoo's, below their floor only because the target follows readings it was not told). */
  readonly allowInconclusive?: (r: PropertyResult) => boolean;
}

/** The finding's case in words, for the problem's reader. */
function caseOf(f: Finding): Pick<CleanProblem, 'counterexample'> {
  const text = counterexampleText(f);
  return text !== undefined ? { counterexample: text } : {};
}

export function cleanRunProblems(results: readonly PropertyResult[], props: readonly Property[], o: CleanOptions): CleanProblem[] {
  const out: CleanProblem[] = [];
  const incomplete = (property: string, message: string) => out.push({ property, kind: 'incomplete', message });
  for (const prop of props) {
    const r = results.find((x) => x.id === prop.id);
    if (!r) {
      incomplete(prop.id, 'no result: the property was not run');
      continue;
    }
    const lacking = missingCapabilities(o.profile, prop.needs, { embedded: o.embedded });
    const expectedSkip = lacking !== undefined;
    // Nothing of it applies under the run's readings (a property that checks what the reading makes moot): skipped, and rightly.
    const moot = r.status === 'skipped' && r.evidence !== undefined;
    for (const f of r.findings) {
      if (f.kind === 'skipped' && (expectedSkip || moot)) continue;
      if (f.kind !== 'skipped' && o.allow?.(f)) continue;
      out.push({ property: f.property, kind: f.kind, message: f.kind === 'skipped' ? `skipped though the profile has what it needs (${f.message})` : f.message,
        ...(f.assumption ? { assumption: f.assumption } : {}), ...(f.replay ? { replay: f.replay } : {}), ...caseOf(f) });
    }
    if (expectedSkip) {
      if (r.status !== 'skipped') incomplete(prop.id, `status ${r.status}, but the profile lacks what it needs (${lacking}): it should have been skipped`);
      continue;
    }
    const planned = plannedRuns(prop, o.runs);
    // An unexpected skip was named with its finding above.
    if (r.status === 'skipped') continue;
    if (r.status === 'inconclusive' && o.allowInconclusive?.(r)) continue;
    if (r.status !== 'passed') incomplete(prop.id, `status ${r.status}${r.inconclusive ? ` (${r.inconclusive})` : ''}, not passed`);
    else if (r.timeBound) incomplete(prop.id, `cut short by its time bound after ${r.runs} of ${r.timeBound.planned} planned cases`);
    else if (r.runs < planned) incomplete(prop.id, `ran ${r.runs} of ${planned} planned cases`);
  }
  return out;
}
