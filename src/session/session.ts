/**
 * A conformance session: the target, the readings probe (under `auto`), the properties, the run, and
 * its report, in one place for the CLI (`run`, `start`), the library (`run()`) and the vitest entry.
 * A target that cannot be reached, answers garbage or stops answering still gets a report that says
 * so: a CI job needs its JUnit and JSON whatever happened. Only bad input to pouchproof itself throws
 * (a `UsageError`, one line).
 */
import type { Property } from '../check/property.ts';
import {
  makeRunId,
  runProperties,
  type FailOnKind,
  type ProgressEvent,
  type RunOptions,
  type RunResult,
  selectProperties,
  toolVersion,
  type ExampleReplay,
} from '../check/run/index.ts';
import type { Discovery } from '../discover/index.ts';
import { readingsConsoleLines, readingsJson, readingsMarkdown } from '../report/readings.ts';
import type { Report } from '../report/report-json.ts';
import { EMBEDDED_WORDS } from '../report/summary-md.ts';
import type { ReadingsMode } from '../spec/index.ts';
import type { Profile } from '../target/profile.ts';
import { redact } from '../target/redact.ts';
import { probeBounds, probeReadings } from './probe.ts';
import { DEFAULT_PROPERTIES_AT_ONCE } from './values.ts';
import { propertiesFor } from './properties.ts';
import { reportOf } from './reports.ts';
import { unreachableReason, withNemesis, type ReadyTarget } from './target.ts';
import { exampleLine } from '../report/examples.ts';
import { ExampleStore } from './examples.ts';
import { historyFiles } from '../report/histories.ts';

export interface SessionOptions {
  readonly seed: number;
  readonly runs: number;
  /** Property id globs. */
  readonly only?: readonly string[];
  /** Property id globs left out (after `only`). */
  readonly exclude?: readonly string[];
  /** Stop after this many failing properties; those not begun are listed as not run. */
  readonly maxFailures?: number;
  /** False: counterexamples are reported as found, unshrunk. */
  readonly shrink?: boolean;
  /** The example database's directory (stored failing cases re-run first, new ones stored); absent: none. */
  readonly examplesDir?: string;
  /** `auto`: the target's readings are probed first and the run judged under them; `defaults`: the registry's. */
  readonly readings: ReadingsMode;
  /** The whole session's time budget (probe and properties). */
  readonly maxDurationMs: number;
  readonly perRequestMs?: number;
  readonly perPropertyMs?: number;
  readonly failOn?: readonly FailOnKind[];
  /** Cases in flight at once (default: the profile's connections). */
  readonly concurrency?: number;
  /** Properties in flight at once among those whose state is all fresh (default 4; 1: each alone, in order). */
  readonly propertiesAtOnce?: number;
  /** Requests per second at most from the start; throttling lowers it further as the target asks. */
  readonly rateLimitPerSecond?: number;
  /** The properties to run (default: the catalogue); a caller's own `defineProperty` ones may stand beside it. */
  readonly properties?: readonly Property[];
  /** The nemesis's SPEC (docs/nemesis.md): faults on pouchproof's side of the wire while the properties run (over the profile's own). */
  readonly nemesis?: string;
}

export interface SessionHooks {
  /** Where the session's few lines go (readings found, target and seed). */
  readonly line: (text: string) => void;
  readonly onProgress?: (e: ProgressEvent) => void;
  readonly signal?: AbortSignal;
  /** Runs after the suite unless it was stopped (`start`'s load run): what it returns joins the report. */
  readonly after?: (run: RunResult, signal: AbortSignal | undefined) => Promise<{ load?: unknown; files?: Record<string, string> } | undefined>;
}

export interface SessionResult {
  /** Set when the target could not be reached at all: nothing ran, and the report says so. */
  readonly unreachable?: string;
  readonly run: RunResult;
  readonly report: Report;
  /** The profile the run was judged under (readings included), whose secrets the reports mask. */
  readonly profile: Profile;
  /** Report files besides the standard ones (`readings.md`, the recorded histories under `histories/`, and the `after` hook's). */
  readonly files: Record<string, string>;
}

export async function runSession(given: ReadyTarget, o: SessionOptions, h: SessionHooks): Promise<SessionResult> {
  const props = await propertiesFor(o.properties, o.only, o.exclude);
  const started = Date.now();
  // First, before the probe and whatever the target does: which pouchproof tests what, so a log shows at once a run of the embedded reference.
  h.line(`pouchproof ${toolVersion()} against ${targetLine(given)}, seed ${o.seed}, ${o.runs} runs per property`);
  const unreachable = await unreachableReason(given);
  if (unreachable) {
    const run = notRun(given.profile, props, o, started, unreachable);
    return { unreachable, run, report: reportOf(inputs(given, given.profile, props, o), run), profile: given.profile, files: {} };
  }
  let discovery: Discovery | undefined;
  let target = given;
  let unknownReadings: RunOptions['unknownReadings'];
  if (o.readings === 'auto') {
    const probed = await probeReadings(given, probeBounds(o.maxDurationMs, o.perRequestMs), o.rateLimitPerSecond !== undefined ? { rateLimitPerSecond: o.rateLimitPerSecond } : {});
    ({ target, discovery, unknownReadings } = probed);
    for (const l of readingsConsoleLines(discovery)) h.line(l);
  }
  const store = o.examplesDir !== undefined ? ExampleStore.for(o.examplesDir, { embedded: target.embedded, baseUrl: target.profile.baseUrl }) : undefined;
  const examples = store ? await store.load() : undefined;
  const judged = withNemesis(target.profile, o.nemesis);
  if (judged.nemesis) h.line(`nemesis: ${judged.nemesis.text}, seeded ${o.seed}: faults on pouchproof's own connections; a call with no answer is sent again (${judged.nemesis.retry.count} retries)`);
  const run = await runProperties(judged, props, {
    seed: o.seed,
    runs: o.runs,
    ...(o.only ? { only: [...o.only] } : {}),
    ...(o.exclude?.length ? { exclude: [...o.exclude] } : {}),
    ...(o.maxFailures !== undefined ? { maxFailures: o.maxFailures } : {}),
    ...(o.shrink === false ? { shrink: false } : {}),
    ...(examples?.size ? { examples, onExample: (e: ExampleReplay) => h.line(exampleLine(e)) } : {}),
    ...(o.perRequestMs !== undefined ? { perRequestMs: o.perRequestMs } : {}),
    ...(o.perPropertyMs !== undefined ? { perPropertyMs: o.perPropertyMs } : {}),
    maxDurationMs: o.maxDurationMs,
    // The probe's time comes out of the budget: it counts from before the probe.
    budgetFrom: started,
    ...(h.signal ? { signal: h.signal } : {}),
    embedded: target.embedded,
    ...(h.onProgress ? { onProgress: h.onProgress } : {}),
    ...(o.failOn?.length ? { failOn: o.failOn } : {}),
    ...(o.concurrency !== undefined ? { concurrency: o.concurrency } : {}),
    propertiesAtOnce: o.propertiesAtOnce ?? DEFAULT_PROPERTIES_AT_ONCE,
    ...(o.rateLimitPerSecond !== undefined ? { rateLimitPerSecond: o.rateLimitPerSecond } : {}),
    ...(unknownReadings?.size ? { unknownReadings } : {}),
  });
  // An interrupted run's verdicts on stored cases are partial: the store is left as it was.
  if (store && !run.interrupted) await store.update(run);
  const more = h.after && !h.signal?.aborted ? await h.after(run, h.signal) : undefined;
  const { files, ...extra } = more ?? {};
  const report = reportOf(inputs(given, target.profile, props, o), run, { ...extra, ...(discovery ? { readings: readingsJson(discovery) } : {}) });
  return { run, report, profile: target.profile, files: { ...(discovery ? { 'readings.md': readingsMarkdown(discovery) } : {}), ...historyFiles(run.results), ...files } };
}

/** The target in words: the embedded reference says it is pouchproof's own server, not the service under test. */
export function targetLine(t: Pick<ReadyTarget, 'embedded' | 'profile'>): string {
  return t.embedded ? `the embedded reference at ${t.profile.baseUrl} (${EMBEDDED_WORDS})` : `${t.profile.name} (${t.profile.baseUrl})`;
}

function inputs(target: ReadyTarget, profile: Profile, props: readonly Property[], o: SessionOptions) {
  return { target, profile, props, runs: o.runs, ...(o.only ? { only: o.only } : {}), ...(o.exclude?.length ? { exclude: o.exclude } : {}), ...(o.maxFailures !== undefined ? { maxFailures: o.maxFailures } : {}), ...(o.shrink === false ? { shrink: false } : {}), ...(o.perRequestMs !== undefined ? { perRequestMs: o.perRequestMs } : {}), ...(o.perPropertyMs !== undefined ? { perPropertyMs: o.perPropertyMs } : {}), maxDurationMs: o.maxDurationMs, ...(o.failOn ? { failOn: o.failOn } : {}) };
}

/** The run of a session whose target could not be reached at all: nothing was checked, and the report says why (exit 3). */
function notRun(profile: Profile, props: readonly Property[], o: SessionOptions, started: number, why: string): RunResult {
  const results = selectProperties(props, o.only ? [...o.only] : undefined, o.exclude).map((p) => ({ id: p.id, section: p.section, status: 'inconclusive' as const, runs: 0, requests: 0, durationMs: 0, findings: [], inconclusive: `not run: ${why}` }));
  return {
    runId: makeRunId(o.seed, new Date(started)),
    seed: o.seed,
    target: redact(profile.baseUrl, profile.secrets),
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    results,
    requests: 0,
    interrupted: false,
    inconclusive: `could not vouch for anything: ${why}`,
    notReached: why,
  };
}
