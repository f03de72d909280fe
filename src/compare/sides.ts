/**
 * One side of a comparison, run alone: its readings probed (the same probes as `--assume auto`),
 * then the suite with the comparison's seed, judged under those readings, every case's exchanges
 * recorded. Sides run one after another, never at once: two targets on one machine would slow each
 * other down and a shared staging server would see twice the traffic.
 */
import { resolveAssumptions, type Readings } from '../spec/index.ts';
import type { Profile } from '../target/profile.ts';
import { discoverReadings, nonDefault, probeClient, type Discovery } from '../discover/index.ts';
import type { Property } from '../check/property.ts';
import { runProperties, type ProgressEvent, type RunResult } from '../check/run/index.ts';
import { CaseRecorder, RecordingClient, type CaseLog } from './recorder.ts';

export interface CompareTarget {
  /** How the side is named in the matrix (unique within a comparison). */
  readonly name: string;
  readonly profile: Profile;
  /** The side is the embedded reference (its embedded-only properties then run). */
  readonly embedded: boolean;
}

export interface SuiteSettings {
  readonly props: readonly Property[];
  readonly seed: number;
  readonly runs: number;
  readonly only?: readonly string[];
  readonly perRequestMs?: number;
  readonly perPropertyMs?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (side: string, e: ProgressEvent) => void;
}

export interface SideRun {
  readonly target: CompareTarget;
  /** The profile the suite ran with: the side's own readings in its assumptions. */
  readonly judgedUnder: Profile;
  readonly discovery: Discovery;
  readonly run: RunResult;
  readonly cases: CaseLog;
}

/** The side's readings: what the profile fixes (kept), over what the probes found. */
export async function probeSide(t: CompareTarget): Promise<{ discovery: Discovery; profile: Profile }> {
  const fixed: Readings = nonDefault(t.profile.assumptions);
  const client = probeClient(t.profile);
  try {
    const discovery = await discoverReadings(t.profile, client, { embedded: t.embedded, fixed });
    const assumptions = resolveAssumptions({ ...(discovery.readings), ...(fixed) });
    return { discovery, profile: { ...t.profile, assumptions } };
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The suite against one side under `profile`'s readings, every case recorded. */
export async function recordSuite(t: CompareTarget, profile: Profile, s: SuiteSettings, only?: readonly string[]): Promise<{ run: RunResult; cases: CaseLog }> {
  const client = new RecordingClient(profile, { nemesisSeed: s.seed });
  const recorder = new CaseRecorder(client);
  const chosen = only ?? s.only;
  try {
    const run = await runProperties(profile, s.props, {
      seed: s.seed,
      runs: s.runs,
      ...(chosen ? { only: [...chosen] } : {}),
      ...(s.perRequestMs !== undefined ? { perRequestMs: s.perRequestMs } : {}),
      ...(s.perPropertyMs !== undefined ? { perPropertyMs: s.perPropertyMs } : {}),
      ...(s.signal ? { signal: s.signal } : {}),
      embedded: t.embedded,
      client,
      // The recorder cuts exchanges into cases by their order: coverage cases one at a time, or they interleave.
      concurrency: 1,
      onProgress: (e) => {
        recorder.onProgress(e);
        s.onProgress?.(t.name, e);
      },
    });
    return { run, cases: recorder.cases() };
  } finally {
    await client.close().catch(() => undefined);
  }
}

export async function runSide(t: CompareTarget, s: SuiteSettings): Promise<SideRun> {
  const { discovery, profile } = await probeSide(t);
  const { run, cases } = await recordSuite(t, profile, s);
  return { target: t, judgedUnder: profile, discovery, run, cases };
}
