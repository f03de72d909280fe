/**
 * Runs properties against the embedded reference (with or without a named fault) through the real
 * runner, with a fixed seed and few runs, and tells which findings came back.
 */
import { cleanRunProblems, type CleanProblem } from '../../src/check/clean-run.ts';
import { isFailing, runProperties, type Finding, type PropertyResult } from '../../src/check/run/index.ts';
import type { Property } from '../../src/check/property.ts';
import { ALTERNATIVES, readingsList, keyOf, startReference, type Reading, type RunningReference } from '../../src/reference/index.ts';
import { recordConsults } from '../precision/consulted.ts';
import type { Readings } from '../../src/spec/index.ts';
import { parseProfile } from '../../src/target/profile.ts';

export const SEED = 20260521;

export interface Checked {
  readonly result: PropertyResult;
  /** Failing findings (violation, server-error). */
  readonly failing: Finding[];
  /** Assumption findings. */
  readonly assumptions: Finding[];
  /** What keeps this from being a clean run (src/check/clean-run.ts): meaningful against the correct reference only. */
  readonly problems: CleanProblem[];
}

export async function runAgainst(
  ref: RunningReference,
  prop: Property,
  o: { runs?: number; seed?: number; assume?: Record<string, string>; perPropertyMs?: number } = {},
): Promise<Checked> {
  const json = ref.profile as { assumptions?: Record<string, string> };
  const profile = parseProfile({ ...json, assumptions: { ...(json.assumptions ?? {}), ...(o.assume ?? {}) } });
  const runs = o.runs ?? 5;
  const run = await runProperties(profile, [prop], {
    seed: o.seed ?? SEED,
    runs,
    embedded: true,
    endOnFailure: true,
    // Far above what any property takes on a quiet machine (the coverage phase of
    // rejection.violations-rejected, the longest, ~10 s): the clean-run check refuses a run cut short
    // by its bound, and a loaded machine must not make that a verdict on the property.
    perPropertyMs: o.perPropertyMs ?? 60_000,
  });
  const result = run.results[0]!;
  return {
    result,
    failing: result.findings.filter((f) => isFailing(f.kind)),
    assumptions: result.findings.filter((f) => f.kind === 'assumption'),
    problems: cleanRunProblems(run.results, [prop], { profile, embedded: true, runs }),
  };
}

/** One reference per fault and readings, started lazily and closed by `closeAll`. */
export class References {
  private readonly running = new Map<string, Promise<RunningReference>>();

  get(fault?: string, readings: Readings = {}): Promise<RunningReference> {
    const key = `${fault ?? ''}|${readingsList(readings).map(keyOf).join(',')}`;
    let r = this.running.get(key);
    if (!r) {
      r = startReference({ port: 0, faults: fault ? [fault] : [], readings });
      this.running.set(key, r);
    }
    return r;
  }

  async closeAll(): Promise<void> {
    const all = [...this.running.values()];
    this.running.clear();
    await Promise.all(all.map(async (p) => (await p).close()));
  }
}

export function summary(c: Checked): string {
  const r = c.result;
  return JSON.stringify({ status: r.status, runs: r.runs, ...(r.timeBound ? { timeBound: r.timeBound } : {}),
    findings: r.findings.map((f) => ({ kind: f.kind, assumption: f.assumption, message: f.message })) });
}

export interface FaultCase {
  /** Property id. */
  readonly id: string;
  /** A named fault of src/reference/fault-catalogue.ts the property must catch. */
  readonly fault: string;
  /**
   * `failing`: a violation, server error or crash (isFailing). `assumption:<name>`: the fault behaves as an alternative
   * reading of the registry, so the honest finding is an assumption mismatch naming that reading.
   */
  readonly expect: 'failing' | `assumption:${string}`;
  readonly runs?: number;
}

/**
 * The alternative readings a property's run can meet: those a fresh correct reference asked for while
 * starting and serving one run of it (`consultedReadings`), and those the property itself consulted
 * (test/precision/consulted.ts). Under any other the reference serves the same requests as under the
 * defaults, and the property, told it, sends the same requests: its run there repeats a default run.
 */
export async function alternativesReached(prop: Property, o: { runs?: number; seed?: number } = {}): Promise<{ readonly reached: readonly Reading[]; readonly underDefaults: Checked }> {
  const ref = await startReference({ port: 0 });
  try {
    const record = recordConsults([prop]);
    const underDefaults = await runAgainst(ref, record.props[0]!, o);
    const served = ref.consultedReadings();
    const own = record.readingsOf(prop.id);
    return { reached: (ALTERNATIVES as readonly Reading[]).filter((r) => served.has(r.name) || own.has(r.name)), underDefaults };
  } finally {
    await ref.close();
  }
}

/**
 * The property told each reading and served it, one reference at a time (a run of the largest commit
 * holds ~35 MB): the readings it was not silent in, with its findings, and how many of its runs passed.
 */
export async function toldInEach(prop: Property, readings: readonly Reading[]): Promise<{ readonly noisy: readonly string[]; readonly passed: number }> {
  const noisy: string[] = [];
  let passed = 0;
  for (const r of readings) {
    const served = { [r.name]: r.value } as Readings;
    const ref = await startReference({ port: 0, readings: served });
    try {
      const { result } = await runAgainst(ref, prop, { runs: 1, assume: served as Record<string, string> });
      if (result.findings.some((f) => f.kind !== 'skipped')) noisy.push(`${keyOf(r)}: ${result.findings.map((f) => `${f.kind} ${f.message}`).join('; ')}`);
      if (result.status === 'passed') passed++;
    } finally {
      await ref.close();
    }
  }
  return { noisy, passed };
}
