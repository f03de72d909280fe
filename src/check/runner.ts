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
import fc from 'fast-check';
import type { AssumptionSet } from '../spec/index.ts';
import { TargetClient, type Exchange } from '../target/client.ts';
import { toCurl } from '../target/curl.ts';
import type { Profile } from '../target/profile.ts';
import { redact } from '../target/redact.ts';
import { missingCapabilities } from './capabilities.ts';
import { createCaseContext, RequestCounter } from './context.ts';
import type { FindingKind, Outcome, Property } from './property.ts';
import { clip, renderValue } from './render.ts';
import { encodeReplayToken } from './replay-token.ts';
import { groundFields, vetOutcome } from './grounds.ts';
import { selectProperties } from './select.ts';

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
export type RunFindingKind = FindingKind | 'skipped' | 'error';

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
  shrinks?: number;
  /** How many cases showed this finding (assumption and transport findings are deduplicated). */
  occurrences?: number;
  /** Requests the whole run had sent when this finding was first seen. */
  detectedAfterRequests?: number;
}

export interface PropertyResult {
  id: string;
  section: string;
  status: 'passed' | 'failed' | 'skipped' | 'interrupted' | 'error';
  runs: number;
  requests: number;
  durationMs: number;
  findings: Finding[];
  /** The property's time bound ended it before its planned number of cases (a passed result is then weaker). */
  timeBound?: { readonly planned: number };
}

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
  /** 1: a violation or server error (or an unreachable target, or a finding of a `failOn` kind); else 2: some property could not be run; else 0. */
  exitCode: 0 | 1 | 2;
  /** Requests sent until the first violation or server error, if any. */
  firstDetectionAfterRequests?: number;
}

/** Cases per property when none is given (`--runs`); properties may ask for fewer. */
export const DEFAULT_RUNS = 25;
/** Per-property time bound when none is given. */
export const DEFAULT_PROPERTY_MS = 30_000;
/** Curl lines kept per finding: the last requests of the failing case. */
const MAX_CURLS = 6;
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

export function isFailing(kind: RunFindingKind): boolean {
  return kind === 'violation' || kind === 'server-error';
}

export async function runProperties(profile: Profile, props: readonly Property[], o: RunOptions): Promise<RunResult> {
  const started = Date.now();
  const selected = selectProperties(props, o.only);
  const client = o.client ?? new TargetClient(profile);
  const counter = new RequestCounter();
  const results: PropertyResult[] = [];
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
      o.onProgress?.({ type: 'property-start', id: prop.id, section: prop.section, index: i, total: selected.length });
      const r = await runOne(profile, prop, client, counter, {
        seed: propertySeed(o.seed, prop.id),
        runs: prop.runs !== undefined ? Math.min(prop.runs, o.runs) : o.runs,
        perRequestMs: o.perRequestMs,
        perPropertyMs: o.perPropertyMs ?? DEFAULT_PROPERTY_MS,
        signal: o.signal,
        embedded: o.embedded ?? false,
        endOnFailure: o.endOnFailure ?? false,
        onProgress: o.onProgress,
      });
      if (r.status === 'interrupted' && o.signal?.aborted) interrupted = true;
      results.push(r);
      o.onProgress?.({ type: 'property-end', result: r, index: i, total: selected.length });
      if (o.stopWhen && r.findings.some(o.stopWhen)) stopped = true;
      if (counter.unreachable) {
        // A target that answers nothing cannot be judged: say so once, loudly, instead of timing out every case.
        unreachable = redact(`the target stopped answering: ${counter.silent} requests in a row got no response (last: ${counter.lastSilence})`, profile.secrets);
        r.findings.push({ kind: 'transport', property: prop.id, section: prop.section, message: `${unreachable}; the run stops here` });
        stopped = true;
        stopReason = 'not run: the target stopped answering';
      }
    }
  } finally {
    if (!o.client) await client.close().catch(() => undefined);
  }
  const failOn: readonly string[] = o.failOn ?? [];
  const failing = results.some((r) => r.findings.some((f) => isFailing(f.kind) || failOn.includes(f.kind)));
  const errors = results.some((r) => r.status === 'error');
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
    exitCode: failing || unreachable ? 1 : errors ? 2 : 0,
  };
  if (detections.length) out.firstDetectionAfterRequests = Math.min(...detections.map((f) => f.detectedAfterRequests!));
  return out;
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
    return await runOne(profile, prop, client, new RequestCounter(), {
      seed: r.seed, runs: r.runs, path: r.path, perRequestMs: o.perRequestMs, perPropertyMs: o.perPropertyMs ?? DEFAULT_PROPERTY_MS,
      signal: o.signal, embedded: o.embedded ?? false, endOnFailure: false,
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
  signal?: AbortSignal;
  embedded: boolean;
  endOnFailure: boolean;
  onProgress?: (e: ProgressEvent) => void;
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
  const timer = setTimeout(() => bound.abort(new Error('property time bound reached')), o.perPropertyMs);
  const onOuterAbort = () => bound.abort(o.signal?.reason);
  o.signal?.addEventListener('abort', onOuterAbort, { once: true });
  if (o.signal?.aborted) bound.abort(o.signal.reason);

  const assumptions: AssumptionSet = profile.assumptions;
  const notes = new Map<string, Finding>();
  let cases = 0;
  let cut = false;
  let last: CaseRecord | undefined;
  let firstDetection: number | undefined;

  const note = (key: string, f: Finding, ctxExchanges: readonly Exchange[], input: unknown) => {
    const seen = notes.get(key);
    if (seen) {
      seen.occurrences = (seen.occurrences ?? 1) + 1;
      return;
    }
    notes.set(key, { ...f, counterexample: clean(describeInput(prop, input)), curl: curls(ctxExchanges, secrets), occurrences: 1,
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
      if (bound.signal.aborted) {
        cut = true;
        return true;
      }
      outcome = { ok: false, kind: 'transport', message: `the property could not complete: ${err instanceof Error ? err.message : String(err)}` };
    }
    o.onProgress?.({ type: 'case', id: prop.id, cases, runs: o.runs, requests: counter.total - requestsAtStart, elapsedMs: Date.now() - started });
    // The remaining cases would only wait out their timeouts; runProperties reports the silence once.
    if (counter.unreachable && !bound.signal.aborted) bound.abort(new Error('the target stopped answering'));
    if (outcome.ok) return true;
    const exchanges = [...ctx.exchanges].sort((a, b) => a.id - b.id);
    if (isFailing(outcome.kind)) {
      last = { input, outcome, exchanges };
      firstDetection ??= counter.total;
      return false;
    }
    const key = outcome.kind === 'assumption' ? `a:${outcome.assumption}` : outcome.kind === 'performance' ? `p:${outcome.judgement}` : `t:${outcome.message}`;
    note(key, { kind: outcome.kind, property: prop.id, section: prop.section, message: clean(outcome.message), ...groundFields(outcome) }, exchanges, input);
    return true;
  };

  const findings: Finding[] = [];
  try {
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
    if (details.failed && details.counterexample !== null && last) {
      findings.push({
        kind: last.outcome.kind,
        property: prop.id,
        section: prop.section,
        message: clean(last.outcome.message),
        ...groundFields(last.outcome),
        counterexample: clean(describeInput(prop, last.input)),
        replay: encodeReplayToken({ property: prop.id, seed: o.seed, path: details.counterexamplePath, runs: o.runs }),
        curl: curls(last.exchanges, secrets),
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
  findings.push(...notes.values());
  const failed = findings.some((f) => isFailing(f.kind));
  return {
    ...base,
    status: failed ? 'failed' : cut && o.signal?.aborted ? 'interrupted' : 'passed',
    ...(cut && !o.signal?.aborted && !failed && !counter.unreachable ? { timeBound: { planned: o.runs } } : {}),
    runs: cases,
    requests: counter.total - requestsAtStart,
    durationMs: Date.now() - started,
    findings,
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

function curls(exchanges: readonly Exchange[], secrets: readonly string[]): string[] {
  const kept = exchanges.slice(-MAX_CURLS);
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
