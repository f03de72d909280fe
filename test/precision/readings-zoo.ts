/**
 * The readings zoo: the suite against the embedded reference switched to every alternative reading
 * of the registry, alone and in seeded random combinations. It is how precision is a property of
 * the build: under a reading the harness was not told of, the suite may report assumption findings
 * and nothing else; told of it (`--assume`), it reports nothing at all. The test suite and the
 * benchmark both run it.
 */
import { cleanRunProblems, type CleanProblem } from '../../src/check/clean-run.ts';
import type { Property } from '../../src/check/property.ts';
import { runProperties, type Finding, type PropertyResult } from '../../src/check/run/index.ts';
import { UNJUDGED_CAUSES } from '../../src/check/run/ledger.ts';
import { ALTERNATIVES, keyOf, readingsList, SWITCHABLE } from '../../src/reference/index.ts';
import { seededRandom } from '../../src/gen/index.ts';
import type { AssumptionName, Readings } from '../../src/spec/index.ts';
import { resolveTarget } from '../../src/target/resolve.ts';
import { EMBEDDED_REFERENCE } from '../../src/reference/embedded.ts';

export interface ZooCase {
  readonly label: string;
  readonly readings: Readings;
}

/** Whether the harness is told the reference's readings (`--assume` them) or runs on the registry defaults. */
export type ZooMode = 'default' | 'assume';

export interface ZooRun {
  readonly case: ZooCase;
  readonly mode: ZooMode;
  readonly seed: number;
  readonly requests: number;
  readonly durationMs: number;
  /**
   * What the mode does not allow: any finding but an expected skip, or assumption findings when not
   * told (default); and any property that did not run its planned cases to a pass.
   */
  readonly falseAlarms: readonly CleanProblem[];
  readonly assumptionFindings: number;
  /** Each property's result, as the run reported it. */
  readonly results: readonly PropertyResult[];
}

/** Every alternative reading alone, then `combos` combinations of 3 to 8 alternatives of different assumptions. */
export function zooCases(o: { readonly combos: number; readonly seed: number }): ZooCase[] {
  const out: ZooCase[] = ALTERNATIVES.map((r) => ({ label: keyOf(r), readings: { [r.name]: r.value } as Readings }));
  const next = seededRandom(o.seed);
  for (let i = 0; i < o.combos; i++) {
    const k = 3 + Math.floor(next() * 6);
    const names = [...SWITCHABLE].sort(() => next() - 0.5).slice(0, k);
    const readings: Record<string, string> = {};
    for (const a of names) {
      const alts = a.choices.filter((c) => c.value !== a.default);
      readings[a.name] = alts[Math.floor(next() * alts.length)]!.value;
    }
    const r = readings as Readings;
    out.push({ label: `combination ${i + 1}: ${readingsList(r).map(keyOf).join(', ')}`, readings: r });
  }
  return out;
}

/**
 * Meanings of stored that show nothing of how rows merge (a count of the rows held, or of the request's
 * own rows): told or not, the usage laws vouch for nothing under them and say why (support/usage.ts
 * `blindTo`), which is right.
 */
const BLIND_STORED: readonly string[] = ['rows-held', 'rows-accepted'];
const blindUsage = (c: ZooCase, property: string) => property.startsWith('usage.') && BLIND_STORED.includes((c.readings as Record<string, string>)['usage-stored-meaning'] ?? '');

/** The findings a mode allows besides expected skips: assumption findings when the harness was not told the readings. */
function allowedIn(mode: ZooMode, c: ZooCase): (f: Finding) => boolean {
  return (f) => (mode === 'default' && f.kind === 'assumption') || (f.kind === 'unknown' && blindUsage(c, f.property) && /shows nothing of 4\.3's rules/.test(f.message));
}

/**
 * Not told the readings, a property may fall below its floor because its cases stopped at readings
 * the target does not follow (and for nothing else): it then vouches for nothing, which is right.
 */
function inconclusiveAllowedIn(mode: ZooMode, zc: ZooCase): (r: PropertyResult) => boolean {
  const onlyFor = (causes: readonly string[], r: PropertyResult) => r.evidence !== undefined && UNJUDGED_CAUSES.every((c) => causes.includes(c) || (r.evidence!.coverage.unjudged[c] === 0 && r.evidence!.random.unjudged[c] === 0));
  return (r) => (mode === 'default' && onlyFor(['assumption'], r)) || (blindUsage(zc, r.id) && onlyFor(['assumption', 'unknown'], r));
}

/**
 * A zoo property's bound: a silent run must be a complete one, so the bound is there to end a hang,
 * not to judge speed; on two cores shared with other jobs the coverage phase of
 * rejection.violations-rejected alone once took 20 s.
 */
const ZOO_PROPERTY_MS = 60_000;

export async function runZooCase(
  props: readonly Property[],
  c: ZooCase,
  mode: ZooMode,
  o: { readonly seed: number; readonly runs: number; readonly perPropertyMs?: number; readonly coverage?: boolean; readonly unknownReadings?: ReadonlyMap<AssumptionName, string> },
): Promise<ZooRun> {
  const t = await resolveTarget({ kind: 'embedded', readings: c.readings }, EMBEDDED_REFERENCE);
  const started = Date.now();
  try {
    const profile = mode === 'assume' ? { ...t.profile, assumptions: { ...t.profile.assumptions, ...c.readings } } : t.profile;
    const run = await runProperties(profile, props, { seed: o.seed, runs: o.runs, embedded: true, perPropertyMs: o.perPropertyMs ?? ZOO_PROPERTY_MS, coverage: o.coverage ?? true, ...(o.unknownReadings ? { unknownReadings: o.unknownReadings } : {}) });
    const findings = run.results.flatMap((r) => r.findings);
    return {
      case: c,
      mode,
      seed: o.seed,
      requests: run.requests,
      durationMs: Date.now() - started,
      falseAlarms: cleanRunProblems(run.results, props, { profile, embedded: true, runs: o.runs, allow: allowedIn(mode, c), allowInconclusive: inconclusiveAllowedIn(mode, c) }),
      assumptionFindings: findings.filter((f) => f.kind === 'assumption').length,
      results: run.results,
    };
  } finally {
    await t.close();
  }
}
