/**
 * The runner: drives each property with fast-check against a live target, one property after
 * another (staging is shared and a property may rely on its own ordering), and turns failing
 * outcomes into shrunk, replayable, redacted findings.
 *
 * How outcomes steer fast-check: `violation` and `server-error` make the predicate fail, so
 * fast-check shrinks; `assumption` and `transport` are recorded (deduplicated) and the predicate
 * passes, so a reading the target does not follow never stops the search for real violations.
 * A case whose `stillValid` is false is discarded (`fc.pre`), never judged.
 */
import { setMaxListeners } from 'node:events';
import fc from 'fast-check';
import type { AssumptionSet } from '../spec/index.ts';
import { TargetClient, type Exchange } from '../target/client.ts';
import { toCurl } from '../target/curl.ts';
import type { Profile } from '../target/profile.ts';
import { probeConnection } from '../target/connect-probe.ts';
import { redact } from '../target/redact.ts';
import { recordExchanges, type RecordedExchange } from './exchange-record.ts';
import type { TimelineData } from './linearizability/timeline.ts';
import { missingCapabilities } from './capabilities.ts';
import { createCaseContext, RequestCounter, type Crash } from './context.ts';
import type { FindingKind, Outcome, Property } from './property.ts';
import { clip, renderValue } from './render.ts';
import { encodeReplayToken } from './replay-token.ts';
import { groundFields, vetOutcome } from './grounds.ts';
import { selectProperties } from './select.ts';
import { coverageCasesOf, coverageIndex, coverageReplayPath, coverageTable, runCoverage, type CoverageFailure, type CoverageObservation, type CoverageTable } from './coverage.ts';

export interface RunOptions {
  seed: number;
  runs: number;
  only?: string[] /* globs */;
  perRequestMs?: number;
  perPropertyMs?: number;
  onProgress?: (e: ProgressEvent) => void;
  signal?: AbortSignal;
  /** The target is the embedded reference (enables `embedded-only` properties). */
  embedded?: boolean;
  /** Stop the run after the first property with a finding this accepts (mutation testing: the fault's own detection). */
  stopWhen?: (f: Finding) => boolean;
  /** Do not shrink: report the first failing case as found (mutation testing). */
  endOnFailure?: boolean;
  /** Overrides the run id (default: `YYYYMMDD-HHMMSS-<seedhex>`). */
  runId?: string;
  /** A client to use instead of a fresh one (the caller then closes it). */
  client?: TargetClient;
  /**
   * The run's overall time budget: shared out over the properties still to run (each gets at most
   * `perPropertyMs`, and at most what is left over the runnable ones left); a property the budget
   * has no time left for is not run, and says so (inconclusive).
   */
  maxDurationMs?: number;
  /** When the budget started counting (Date.now() of, e.g., the readings probe before the run; default: the run's start). */
  budgetFrom?: number;
  /** Run the coverage phase (default true); it is the same whatever the seed, so a multi-seed sweep may run it once. */
  coverage?: boolean;
  /**
   * Coverage cases in flight at once (default: the profile's connections, at most 16). `compare` sets 1:
   * it cuts the recorded exchanges into cases by their order, which concurrent cases would interleave.
   */
  coverageConcurrency?: number;
  /** Kinds of finding that fail the run besides violations and server errors (`--fail-on performance`). */
  failOn?: readonly FailOnKind[];
}

/** The kinds of finding a run can be told to fail on (`--fail-on`): cost smells are reported apart unless asked. */
export type FailOnKind = 'performance';
export const FAIL_ON_KINDS: readonly FailOnKind[] = ['performance'];

export type ProgressEvent =
  | { readonly type: 'property-start'; readonly id: string; readonly section: string; readonly index: number; readonly total: number }
  | { readonly type: 'case'; readonly id: string; readonly cases: number; readonly runs: number; readonly requests: number; readonly elapsedMs: number }
  | { readonly type: 'property-end'; readonly result: PropertyResult; readonly index: number; readonly total: number };

/**
 * A finding's kind: what a property's outcome said (`FindingKind`), or what the runner says about
 * the property itself: `skipped` (the profile lacks a capability) and `error` (pouchproof could not
 * run it, e.g. its cases could not be built: the suite's fault, not the target's).
 */
export type RunFindingKind =
  | FindingKind
  | 'skipped'
  | 'error'
  // the target went down right after a request (confirmed with a fresh connection): fails the run
  | 'crash';

export interface Finding {
  kind: RunFindingKind;
  property: string;
  section: string;
  message: string;
  assumption?: string;
  /** For a violation: the judgement that found it and the clause of SPEC.md it rests on (`§4.3 "…"`). */
  judgement?: string;
  ground?: string;
  counterexample?: string;
  replay?: string /* token */;
  curl?: string[] /* redacted */;
  /** The same requests as `curl`, with what came back (redacted): the HAR export and the HTML report. */
  exchanges?: RecordedExchange[];
  /** For a history that cannot be linearized: the witness as a timeline. */
  timeline?: TimelineData;
  shrinks?: number;
  /** How many cases showed this finding (assumption and transport findings are deduplicated). */
  occurrences?: number;
  /** Requests the whole run had sent when this finding was first seen. */
  detectedAfterRequests?: number;
}

export interface PropertyResult {
  id: string;
  section: string;
  status: PropertyStatus;
  runs: number;
  requests: number;
  durationMs: number;
  findings: Finding[];
  /**
   * The property's time bound ended it before its planned number of cases (a passed result is then
   * weaker); `budgetShareMs` when that bound was its share of the run's time budget (`maxDurationMs`).
   */
  timeBound?: { readonly planned: number; readonly budgetShareMs?: number };
  /** For an `inconclusive` property: why, in one line (none of its cases completed, or the budget left it no time). */
  inconclusive?: string;
  /** The coverage phase (coverage.ts), when the property has one: cases judged and what each showed. */
  coverage?: { readonly cases: number; readonly observations: readonly CoverageObservation[] };
}

/**
 * `inconclusive`: none of the property's cases completed (every one ended in a transport failure,
 * or its time ran out first, or the run's budget left it none): nothing was vouched for, so it is
 * never `passed`.
 */
export type PropertyStatus =
  | 'passed'
  | 'failed'
  | 'skipped'
  | 'interrupted'
  | 'error'
  | 'inconclusive';

export interface RunResult {
  /** Set when the run stopped because the target answered nothing (the run then exits 1: nothing could be vouched for). */
  unreachable?: string;
  runId: string;
  seed: number;
  target: string;
  startedAt: string;
  durationMs: number;
  results: PropertyResult[];
  requests: number;
  interrupted: boolean;
  /** One line, when some property is inconclusive: which, and why (the run then does not exit 0). */
  inconclusive?: string;
  /** Set when the run had a time budget (`maxDurationMs`): the properties it cut short or left unrun. */
  budget?: { readonly maxDurationMs: number; readonly cut: readonly string[]; readonly notRun: readonly string[] };
  /** 1: a violation, server error or crash (or an unreachable target, or a finding of a `failOn` kind); else 2: some property could not be run or is inconclusive; else 0. */
  exitCode: 0 | 1 | 2;
  /** Requests sent until the first violation or server error, if any. */
  firstDetectionAfterRequests?: number;
  /** Which request constraints were seen accepted and refused, when a coverage phase ran. */
  coverage?: CoverageTable;
}

/** Cases per property when none is given (`--runs`); properties may ask for fewer. */
export const DEFAULT_RUNS = 25;
/** Per-property time bound when none is given. */
export const DEFAULT_PROPERTY_MS = 30_000;
/** Listeners a property's time bound may hold at once: one per call in flight. */
const MAX_CALLS_IN_FLIGHT = 10_000;
/** Curl lines kept per finding: the last requests of the failing case. */
const MAX_CURLS = 6;
/** Curl lines kept per finding of a property that shows all its requests (`showAllRequests`). */
const MAX_STEP_CURLS = 50;
const MAX_CURL_CHARS = 8_000;

export function makeRunId(seed: number, at: Date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const day = `${at.getUTCFullYear()}${p(at.getUTCMonth() + 1)}${p(at.getUTCDate())}`;
  const time = `${p(at.getUTCHours())}${p(at.getUTCMinutes())}${p(at.getUTCSeconds())}`;
  return `${day}-${time}-${(seed >>> 0).toString(16).padStart(8, '0')}`;
}

/** A property's own seed: stable under `--only`, so a subset replays the same cases. */
export function propertySeed(runSeed: number, id: string): number {
  let h = 0x811c9dc5 ^ (runSeed | 0);
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

/** The cases a property is planned to run in a run of `runs` (properties may ask for fewer). */
export function plannedRuns(prop: Pick<Property, 'runs'>, runs: number): number {
  return prop.runs !== undefined ? Math.min(prop.runs, runs) : runs;
}

export function isFailing(kind: RunFindingKind): boolean {
  return kind === 'violation' || kind === 'server-error' || kind === 'crash';
}

export async function runProperties(profile: Profile, props: readonly Property[], o: RunOptions): Promise<RunResult> {
  const started = Date.now();
  const selected = selectProperties(props, o.only);
  const client = o.client ?? new TargetClient(profile);
  const counter = newCounter(profile);
  const embedded = o.embedded ?? false;
  const deadline = o.maxDurationMs !== undefined ? (o.budgetFrom ?? started) + o.maxDurationMs : undefined;
  const runnable = selected.map((p) => missingCapabilities(profile, p.needs, { embedded }) === undefined);
  const results: PropertyResult[] = [];
  const budgetCut: string[] = [];
  const budgetNotRun: string[] = [];
  let interrupted = false;
  let stopped = false;
  let stopReason = 'not run: the run stopped at the first finding';
  let unreachable: string | undefined;
  try {
    for (let i = 0; i < selected.length; i++) {
      const prop = selected[i]!;
      if (o.signal?.aborted || stopped) {
        if (o.signal?.aborted) interrupted = true;
        results.push({ id: prop.id, section: prop.section, status: stopped ? 'skipped' : 'interrupted', runs: 0, requests: 0, durationMs: 0,
          findings: stopped ? [{ kind: 'skipped', property: prop.id, section: prop.section, message: stopReason }] : [] });
        continue;
      }
      let perPropertyMs = o.perPropertyMs ?? DEFAULT_PROPERTY_MS;
      let budgetShareMs: number | undefined;
      if (deadline !== undefined && runnable[i]) {
        const left = deadline - Date.now();
        if (left <= 0) {
          budgetNotRun.push(prop.id);
          results.push({ id: prop.id, section: prop.section, status: 'inconclusive', runs: 0, requests: 0, durationMs: 0, findings: [],
            inconclusive: `not run: the run's time budget (${seconds(o.maxDurationMs!)}) was spent` });
          continue;
        }
        // What is left, shared equally over the runnable properties left: a quick property leaves its unused share to the next.
        const share = Math.max(1, Math.floor(left / runnable.slice(i).filter(Boolean).length));
        if (share < perPropertyMs) perPropertyMs = budgetShareMs = share;
      }
      o.onProgress?.({ type: 'property-start', id: prop.id, section: prop.section, index: i, total: selected.length });
      const r = await runOne(profile, prop, client, counter, {
        seed: propertySeed(o.seed, prop.id),
        runs: plannedRuns(prop, o.runs),
        perRequestMs: o.perRequestMs,
        perPropertyMs,
        ...(budgetShareMs !== undefined ? { budgetShareMs } : {}),
        signal: o.signal,
        embedded,
        endOnFailure: o.endOnFailure ?? false,
        onProgress: o.onProgress,
        coverage: o.coverage ?? true,
        ...(o.coverageConcurrency !== undefined ? { coverageConcurrency: o.coverageConcurrency } : {}),
      });
      if (r.status === 'interrupted' && o.signal?.aborted) interrupted = true;
      if (r.timeBound?.budgetShareMs !== undefined) budgetCut.push(r.id);
      results.push(r);
      if (counter.crash) {
        stopped = true;
        stopReason = `not run: the target went down (see the crash finding of ${prop.id})`;
      } else if (counter.unreachable) {
        // A target that completes no response cannot be judged: say so once, loudly, instead of timing out every case.
        unreachable = redact(`the target stopped answering: ${counter.silent} requests in a row got no complete response (last: ${counter.lastSilence})`, profile.secrets);
        r.findings.push({ kind: 'transport', property: prop.id, section: prop.section, message: `${unreachable}; the run stops here` });
        stopped = true;
        stopReason = 'not run: the target stopped answering';
      }
      o.onProgress?.({ type: 'property-end', result: r, index: i, total: selected.length });
      if (o.stopWhen && r.findings.some(o.stopWhen)) stopped = true;
    }
  } finally {
    if (!o.client) await client.close().catch(() => undefined);
  }
  const failOn: readonly string[] = o.failOn ?? [];
  const failing = results.some((r) => r.findings.some((f) => isFailing(f.kind) || failOn.includes(f.kind)));
  const errors = results.some((r) => r.status === 'error');
  const inconclusive = inconclusiveLine(results);
  const detections = results.flatMap((r) => r.findings).filter((f) => isFailing(f.kind) && f.detectedAfterRequests !== undefined);
  const out: RunResult = {
    runId: o.runId ?? makeRunId(o.seed, new Date(started)),
    seed: o.seed,
    target: redact(profile.baseUrl, profile.secrets),
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    results,
    requests: counter.total,
    interrupted,
    ...(unreachable ? { unreachable } : {}),
    ...(inconclusive ? { inconclusive } : {}),
    ...(o.maxDurationMs !== undefined ? { budget: { maxDurationMs: o.maxDurationMs, cut: budgetCut, notRun: budgetNotRun } } : {}),
    exitCode: failing || unreachable ? 1 : errors || inconclusive ? 2 : 0,
  };
  if (detections.length) out.firstDetectionAfterRequests = Math.min(...detections.map((f) => f.detectedAfterRequests!));
  const observed = results.flatMap((r) => r.coverage?.observations ?? []);
  if (observed.length) out.coverage = coverageTable(observed);
  return out;
}

/** A counter that confirms a refused or dropped connection with a fresh one (see `RequestCounter`). */
function newCounter(profile: Profile): RequestCounter {
  return new RequestCounter(async () => {
    const p = await probeConnection(profile.baseUrl, profile.timeouts.connectMs);
    // Only a refusal is evidence that nothing listens; a slow connection is not.
    return { ok: !p.refused, reason: p.reason };
  });
}

/** The run's inconclusive properties in one line, or undefined when there are none. */
function inconclusiveLine(results: readonly PropertyResult[]): string | undefined {
  const inc = results.filter((r) => r.status === 'inconclusive');
  if (inc.length === 0) return undefined;
  const names = inc.slice(0, 4).map((r) => r.id).join(', ') + (inc.length > 4 ? ` and ${inc.length - 4} more` : '');
  return `${inc.length} propert${inc.length === 1 ? 'y' : 'ies'} completed no case (${names}): ${inc[0]!.inconclusive ?? 'no case completed'}`;
}

function seconds(ms: number): string {
  return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${+(ms / 1000).toFixed(1)} s`;
}

/** Re-runs one property's counterexample from its token parts (fast-check replay). */
export async function replayProperty(
  profile: Profile,
  prop: Property,
  r: { seed: number; path: string; runs: number },
  o: { perRequestMs?: number; perPropertyMs?: number; signal?: AbortSignal; embedded?: boolean; client?: TargetClient } = {},
): Promise<PropertyResult> {
  const client = o.client ?? new TargetClient(profile);
  try {
    return await runOne(profile, prop, client, newCounter(profile), {
      seed: r.seed, runs: r.runs, path: r.path, perRequestMs: o.perRequestMs, perPropertyMs: o.perPropertyMs ?? DEFAULT_PROPERTY_MS,
      signal: o.signal, embedded: o.embedded ?? false, endOnFailure: false, coverage: true,
    });
  } finally {
    if (!o.client) await client.close().catch(() => undefined);
  }
}

interface OneOptions {
  seed: number;
  runs: number;
  path?: string;
  perRequestMs?: number;
  perPropertyMs: number;
  /** Set when `perPropertyMs` is the property's share of the run's time budget. */
  budgetShareMs?: number;
  signal?: AbortSignal;
  embedded: boolean;
  endOnFailure: boolean;
  onProgress?: (e: ProgressEvent) => void;
  coverage: boolean;
  coverageConcurrency?: number;
}

interface CaseRecord {
  input: unknown;
  outcome: Extract<Outcome, { ok: false }>;
  exchanges: Exchange[];
}

async function runOne(profile: Profile, prop: Property, client: TargetClient, counter: RequestCounter, o: OneOptions): Promise<PropertyResult> {
  const started = Date.now();
  const secrets = profile.secrets;
  const clean = (s: string) => redact(s, secrets);
  const base = { id: prop.id, section: prop.section };
  const missing = missingCapabilities(profile, prop.needs, { embedded: o.embedded });
  if (missing) {
    return { ...base, status: 'skipped', runs: 0, requests: 0, durationMs: 0,
      findings: [{ kind: 'skipped', property: prop.id, section: prop.section, message: clean(`skipped: ${missing}`) }] };
  }

  const requestsAtStart = counter.total;
  const bound = new AbortController();
  // Every call in flight listens for the bound (races send many at once): not a leak, each is removed when its call ends.
  setMaxListeners(MAX_CALLS_IN_FLIGHT, bound.signal);
  const timer = setTimeout(() => bound.abort(new Error('property time bound reached')), o.perPropertyMs);
  const onOuterAbort = () => bound.abort(o.signal?.reason);
  o.signal?.addEventListener('abort', onOuterAbort, { once: true });
  if (o.signal?.aborted) bound.abort(o.signal.reason);

  const assumptions: AssumptionSet = profile.assumptions;
  const notes = new Map<string, Finding>();
  let cases = 0;
  /** Cases that ended in a judgement (passed, or a finding other than transport): what the property vouches for. */
  let completed = 0;
  let cut = false;
  let last: CaseRecord | undefined;
  let crashed: { input: unknown; exchanges: Exchange[] } | undefined;
  let firstDetection: number | undefined;

  const note = (key: string, f: Finding, ctxExchanges: readonly Exchange[], input: unknown) => {
    const seen = notes.get(key);
    if (seen) {
      seen.occurrences = (seen.occurrences ?? 1) + 1;
      return;
    }
    notes.set(key, { ...f, counterexample: clean(describeInput(prop, input)), ...evidence(ctxExchanges, secrets, curlsKept(prop)), occurrences: 1,
      detectedAfterRequests: counter.total });
  };

  const predicate = async (input: unknown): Promise<boolean> => {
    if (bound.signal.aborted) {
      cut = true;
      return true;
    }
    if (prop.stillValid && !prop.stillValid(input)) fc.pre(false);
    const ctx = createCaseContext({ profile, assumptions, client, signal: bound.signal, counter, timeoutMs: o.perRequestMs, embedded: o.embedded });
    cases++;
    let outcome: Outcome;
    try {
      outcome = vetOutcome(prop, await prop.check(ctx, input));
    } catch (err) {
      if (bound.signal.aborted && !counter.crash) {
        cut = true;
        return true;
      }
      outcome = { ok: false, kind: 'transport', message: `the property could not complete: ${err instanceof Error ? err.message : String(err)}` };
    }
    o.onProgress?.({ type: 'case', id: prop.id, cases, runs: o.runs, requests: counter.total - requestsAtStart, elapsedMs: Date.now() - started });
    const exchanges = [...ctx.exchanges].sort((a, b) => a.id - b.id);
    if (counter.crash) {
      // The target went down under this case: that is the finding, whatever the property made of the silence after it.
      crashed ??= { input, exchanges };
      firstDetection ??= counter.total;
      if (!bound.signal.aborted) bound.abort(new Error('the target went down'));
      return false; // fast-check keeps the case's path: the finding gets a replay token
    }
    // Ended by a time bound: an unfinished case vouches for nothing, and whatever it made of a call the bound ended
    // (a property may read a failed call as a target that stopped serving) is pouchproof's own doing, never a finding.
    if (bound.signal.aborted && (outcome.ok || outcome.kind === 'transport' || exchanges.some((e) => e.failure === 'aborted'))) {
      cut = true;
      return true;
    }
    // The remaining cases would only wait out their timeouts; runProperties reports the silence once.
    if (counter.unreachable && !bound.signal.aborted) bound.abort(new Error('the target stopped answering'));
    if (outcome.ok || outcome.kind !== 'transport') completed++;
    if (outcome.ok) return true;
    if (isFailing(outcome.kind)) {
      last = { input, outcome, exchanges };
      firstDetection ??= counter.total;
      return false;
    }
    noteOutcome(outcome, exchanges, input);
    return true;
  };
  function noteOutcome(outcome: Extract<Outcome, { ok: false }>, exchanges: readonly Exchange[], input: unknown): void {
    const key = outcome.kind === 'assumption' ? `a:${outcome.assumption}` : outcome.kind === 'performance' ? `p:${outcome.judgement}` : `t:${outcome.message}`;
    note(key, { kind: outcome.kind, property: prop.id, section: prop.section, message: clean(outcome.message), ...groundFields(outcome) }, exchanges, input);
  }

  const findings: Finding[] = [];
  let coverage: PropertyResult['coverage'];
  try {
    // The coverage phase: every enumerated case once, before the random phase (a replay of one coverage case runs it alone).
    const only = o.path === undefined ? undefined : coverageIndex(o.path);
    if ((o.coverage && o.path === undefined) || only !== undefined) {
      const covered = coverageCasesOf(prop, profile);
      if (covered.error) {
        findings.push({ kind: 'error', property: prop.id, section: prop.section, message: clean(covered.error) });
        return { ...base, status: 'error', runs: 0, requests: 0, durationMs: Date.now() - started, findings };
      }
      const phase = await runCoverage(prop, covered.cases, { profile, client, counter, signal: bound.signal, timeoutMs: o.perRequestMs, embedded: o.embedded,
        ...(o.coverageConcurrency !== undefined ? { concurrency: o.coverageConcurrency } : {}),
        endOnFailure: o.endOnFailure, only, note: noteOutcome, onCase: (n) => o.onProgress?.({ type: 'case', id: prop.id, cases: n, runs: covered.cases.length, requests: counter.total - requestsAtStart, elapsedMs: Date.now() - started }) });
      if (phase.cases > 0) coverage = { cases: phase.cases, observations: phase.observations };
      findings.push(...phase.failures.map((f) => coverageFinding(prop, f, secrets)));
      if (phase.crashed && counter.crash) findings.push(crashFinding(prop, counter.crash, phase.crashed, secrets, { detectedAfterRequests: counter.total }));
      if (bound.signal.aborted) cut = true;
      if (only !== undefined || (o.endOnFailure && phase.failures.length > 0) || cut || counter.unreachable || phase.crashed) return finish();
    }
    let arb: fc.Arbitrary<unknown>;
    try {
      arb = prop.arbitrary(profile);
    } catch (err) {
      findings.push({ kind: 'error', property: prop.id, section: prop.section,
        message: clean(`pouchproof could not build the property's cases: ${err instanceof Error ? err.message : String(err)}`) });
      return { ...base, status: 'error', runs: 0, requests: 0, durationMs: Date.now() - started, findings };
    }
    const details = await fc.check(fc.asyncProperty(arb, predicate), {
      seed: o.seed,
      numRuns: o.runs,
      ...(o.path !== undefined ? { path: o.path } : {}),
      endOnFailure: o.endOnFailure,
      maxSkipsPerRun: 100,
    });
    if (crashed) {
      findings.push(crashFinding(prop, counter.crash!, crashed, secrets, {
        ...(details.failed && details.counterexamplePath !== null ? { replay: encodeReplayToken({ property: prop.id, seed: o.seed, path: details.counterexamplePath, runs: o.runs }) } : {}),
        detectedAfterRequests: firstDetection,
      }));
    }
    if (details.failed && details.counterexample !== null && last) {
      findings.push({
        kind: last.outcome.kind,
        property: prop.id,
        section: prop.section,
        message: clean(last.outcome.message),
        ...groundFields(last.outcome),
        counterexample: clean(describeInput(prop, last.input)),
        // After a crash the counterexample path is the crashing case's, not this one's.
        ...(crashed ? {} : { replay: encodeReplayToken({ property: prop.id, seed: o.seed, path: details.counterexamplePath, runs: o.runs }) }),
        ...evidence(last.exchanges, secrets, curlsKept(prop)),
        ...(last.outcome.kind === 'violation' && last.outcome.timeline ? { timeline: last.outcome.timeline } : {}),
        shrinks: details.numShrinks,
        detectedAfterRequests: firstDetection,
      });
    } else if (details.failed && details.counterexample === null && !details.interrupted) {
      findings.push({ kind: 'transport', property: prop.id, section: prop.section,
        message: `every generated case was discarded by stillValid (${details.numSkips} skipped): the property's generator and its label disagree` });
    }
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', onOuterAbort);
  }
  return finish();

  function finish(): PropertyResult {
    const all = [...findings, ...notes.values()];
    const failed = all.some((f) => isFailing(f.kind));
    // A coverage case judged is a case completed: a replay of one coverage case vouches for it.
    const done = completed + (coverage?.cases ?? 0);
    const status: PropertyStatus = failed ? 'failed' : cut && o.signal?.aborted ? 'interrupted' : done === 0 ? 'inconclusive' : 'passed';
    const byBound = cut && !o.signal?.aborted && !failed && !counter.unreachable;
    return {
      ...base,
      status,
      ...(byBound ? { timeBound: { planned: o.runs, ...(o.budgetShareMs !== undefined ? { budgetShareMs: o.budgetShareMs } : {}) } } : {}),
      ...(status === 'inconclusive' ? { inconclusive: clean(whyInconclusive(cases, byBound, o, [...notes.values()])) } : {}),
      runs: cases,
      requests: counter.total - requestsAtStart,
      durationMs: Date.now() - started,
      findings: all,
      ...(coverage ? { coverage } : {}),
    };
  }
}

/** A failing coverage case as a finding: already minimal (nothing to shrink), replayable by its index. */
function coverageFinding(prop: Property, f: CoverageFailure, secrets: readonly string[]): Finding {
  return {
    kind: f.outcome.kind,
    property: prop.id,
    section: prop.section,
    message: redact(f.outcome.message, secrets),
    ...groundFields(f.outcome),
    counterexample: redact(`coverage case ${f.index} (${f.variant} of ${f.constraint}): ${describeInput(prop, f.input)}`, secrets),
    replay: encodeReplayToken({ property: prop.id, seed: 0, path: coverageReplayPath(f.index), runs: 1 }),
    ...evidence(f.exchanges, secrets, curlsKept(prop)),
    shrinks: 0,
    ...(f.occurrences > 1 ? { occurrences: f.occurrences } : {}),
    detectedAfterRequests: f.detectedAfterRequests,
  };
}

/** Why a property completed no case, in one line. */
function whyInconclusive(cases: number, byBound: boolean, o: OneOptions, notes: readonly Finding[]): string {
  const bound = o.budgetShareMs !== undefined ? `its share of the run's time budget (${seconds(o.budgetShareMs)})` : `its time bound (${seconds(o.perPropertyMs)})`;
  const trouble = notes.find((f) => f.kind === 'transport')?.message;
  if (byBound && !trouble) return `${bound} ended it before any case completed`;
  if (cases === 0) return trouble ?? 'no case ran';
  const what = `none of its ${cases} case${cases === 1 ? '' : 's'} completed`;
  return `${what}${trouble ? `: ${trouble}` : ''}${byBound ? ` (then ${bound} ended it)` : ''}`;
}

/** The finding for a target that went down under a case: the request sent last, its curl line, and the evidence. */
function crashFinding(
  prop: Property,
  crash: Crash,
  at: { input: unknown; exchanges: Exchange[] },
  secrets: readonly string[],
  more: Pick<Finding, 'replay' | 'detectedAfterRequests'>,
): Finding {
  const ex = crash.culprit;
  const upTo = at.exchanges.filter((e) => e.id <= ex.id);
  const inCase = upTo.some((e) => e.id === ex.id);
  const path = ex.request.url.replace(/^[a-z]+:\/\/[^/]+/i, '');
  return {
    kind: 'crash',
    property: prop.id,
    section: prop.section,
    message: redact(`the target went down after ${ex.request.method} ${clip(path, 200)} (${crash.how}); a fresh connection was refused too (${crash.confirmation}), so the run stops here`, secrets),
    counterexample: redact(describeInput(prop, at.input), secrets),
    ...evidence(inCase ? upTo : [ex], secrets, curlsKept(prop)),
    ...more,
  };
}

function describeInput(prop: Property, input: unknown): string {
  if (prop.describe) {
    try {
      return clip(prop.describe(input), 4000);
    } catch {
      // fall back to the generic rendering
    }
  }
  return renderValue(input);
}

const curlsKept = (prop: Property): number => (prop.showAllRequests ? MAX_STEP_CURLS : MAX_CURLS);

/** A case's requests as a finding shows them: curl lines, and the same exchanges as data. */
function evidence(exchanges: readonly Exchange[], secrets: readonly string[], max: number): Pick<Finding, 'curl' | 'exchanges'> {
  return { curl: curls(exchanges, secrets, max), exchanges: recordExchanges(exchanges, secrets, max) };
}

function curls(exchanges: readonly Exchange[], secrets: readonly string[], max: number): string[] {
  const kept = exchanges.slice(-max);
  const out: string[] = [];
  if (exchanges.length > kept.length) out.push(`# ${exchanges.length - kept.length} earlier request(s) of this case omitted`);
  for (const ex of kept) {
    let line: string;
    try {
      line = toCurl(ex, secrets);
    } catch {
      line = `# ${ex.request.method} ${ex.request.url}`;
    }
    out.push(clip(redact(line, secrets), MAX_CURL_CHARS));
  }
  return out;
}
