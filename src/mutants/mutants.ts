/**
 * Mutation testing of the suite itself: the suite runs against the reference once per named
 * fault (each fault should be killed) and against the correct reference over several seeds
 * (which must be clean: no finding but an expected skip, every property run to its planned cases
 * and passed, src/check/clean-run.ts). A fault is killed by a violation or a server error, or —
 * only for a fault that departs from a registry reading where the spec is silent (`deviatesFrom`)
 * — by an assumption finding naming exactly that reading. Faults only load can see (`load.*`
 * killers) are judged by injected load checks. The reference is injected (`startTarget`) so this
 * module stays below the CLI and testable.
 */
import type { AssumptionName } from '../spec/index.ts';
import type { Profile } from '../target/profile.ts';
import { cleanRunProblems, type CleanProblem } from '../check/clean-run.ts';
import type { Property } from '../check/property.ts';
import { mutantsExitCode, runProperties, type Finding, type RunResult } from '../check/run/index.ts';

export interface FaultDescriptor {
  readonly name: string;
  readonly area: string;
  readonly description: string;
  readonly expectedKillers: readonly string[];
  /** The registry reading the fault departs from; its detection is an assumption finding naming it. */
  readonly deviatesFrom?: string;
}

/** A load check (`load.*` killer id): runs against a reference with these faults switched on. */
export type LoadCheck = (faults: readonly string[]) => Promise<{ readonly detected: boolean; readonly message: string; readonly requests: number }>;

export interface StartedTarget {
  readonly profile: Profile;
  /** Readings a probe of this target could not identify: the run judges them as unknown (`--assume auto`). */
  readonly unknownReadings?: ReadonlyMap<AssumptionName, string>;
  close(): Promise<void>;
}

export interface MutantsOptions {
  readonly seed: number;
  readonly runs: number;
  /** Seeds for the correct reference (false-finding check); 0 skips it. */
  readonly seeds: number;
  /** Run every property against every fault, with shrinking, instead of stopping at the first kill. */
  readonly full?: boolean;
  /** Runs for the false-finding check (default: `runs`). */
  readonly cleanRuns?: number;
  readonly perPropertyMs?: number;
  readonly perRequestMs?: number;
  readonly signal?: AbortSignal;
  /** Called as each fault (or clean seed) finishes. */
  readonly onFault?: (r: FaultResult) => void;
  readonly onClean?: (r: CleanRun) => void;
  /** Load checks by killer id; a load-only fault whose killers have no check here is not run. */
  readonly loadChecks?: Readonly<Record<string, LoadCheck>>;
}

export interface FaultResult {
  fault: string;
  area: string;
  description: string;
  expectedKillers: string[];
  /** Only load checks are expected to kill it: judged by them, not by the conformance suite. */
  loadOnly: boolean;
  ran: boolean;
  /**
   * Detected: some property reported a violation, a server error, or an assumption mismatch (a
   * fault that departs from a registry reading, e.g. serving requests without credentials, is
   * caught as the latter: reported, not failed, in ordinary runs).
   */
  killed: boolean;
  killedBy: string[];
  /** How each killing property saw the fault. */
  kills: { property: string; kind: Finding['kind']; assumption?: string }[];
  /** Requests the run had sent when the fault was first detected. */
  requestsToDetection?: number;
  requests: number;
  durationMs: number;
  first?: Pick<Finding, 'property' | 'kind' | 'message' | 'replay' | 'assumption'>;
}

export interface CleanRun {
  seed: number;
  requests: number;
  durationMs: number;
  /**
   * Whatever keeps the correct reference's run from being clean (and failed load checks): any
   * finding but an expected skip (a transport finding included), and any property that did not run
   * its planned cases to a pass (`incomplete`: cut by its time bound, errored). Each one is a false finding.
   */
  falseFindings: CleanProblem[];
  /** Of which assumption mismatches (the correct reference follows every default reading). */
  assumptionMismatches: number;
  /** The conformance run (absent for a load check). */
  run?: RunResult;
  /** The profile of that run's reference (for its report and redaction). */
  profile?: Profile;
  /** Set when this entry is a load check against the correct reference. */
  loadCheck?: string;
}

/** The kill matrix; its exit code is `mutantsExitCode`'s (src/check/run/exit-code.ts), computed from it, never stored. */
export interface MutantsResult {
  seed: number;
  runs: number;
  faults: FaultResult[];
  clean: CleanRun[];
  killed: number;
  /** Faults the conformance suite is expected to kill (not load-only). */
  expected: number;
  survivors: string[];
  /** Faults killed, but by none of their expected killers (compareKillers). */
  unexpectedlyKilled: string[];
  falseFindings: number;
  medianRequestsToDetection?: number;
  interrupted: boolean;
}

/**
 * Whether a finding detects this fault: a violation, server error or crash always does; an assumption
 * finding only when it names the very reading the fault departs from (any other mismatch is noise
 * and must not pass for a kill); a performance finding (a cost smell) only from a property the
 * fault names as its expected killer (a slow fault is no defect of the letter).
 */
export function detectsFault(f: Pick<Finding, 'kind' | 'assumption' | 'property'>, fault: Pick<FaultDescriptor, 'deviatesFrom' | 'expectedKillers'>): boolean {
  if (f.kind === 'violation' || f.kind === 'server-error' || f.kind === 'crash') return true;
  if (f.kind === 'performance') return fault.expectedKillers.includes(f.property);
  return f.kind === 'assumption' && fault.deviatesFrom !== undefined && f.assumption === fault.deviatesFrom;
}

/** A fault's actual killers against its expected ones. */
export interface KillerComparison {
  /** Expected killers that did kill it. */
  readonly expectedKillers: readonly string[];
  /** Killers it was not expected to meet: a property catching more than planned, or a sign the fault's description is wrong. */
  readonly unexpectedKillers: readonly string[];
  /** Killed, and by at least one of its expected killers. */
  readonly asExpected: boolean;
}

export function compareKillers(f: Pick<FaultResult, 'killedBy' | 'expectedKillers'>): KillerComparison {
  const expectedKillers = f.killedBy.filter((k) => f.expectedKillers.includes(k));
  return { expectedKillers, unexpectedKillers: f.killedBy.filter((k) => !f.expectedKillers.includes(k)), asExpected: expectedKillers.length > 0 };
}

export function isLoadOnly(f: FaultDescriptor): boolean {
  return f.expectedKillers.length > 0 && f.expectedKillers.every((k) => k.startsWith('load.'));
}

/** The expected killers first (in their listed order), then every other property. */
export function orderForFault(props: readonly Property[], f: FaultDescriptor): Property[] {
  const first = f.expectedKillers.map((id) => props.find((p) => p.id === id)).filter((p): p is Property => p !== undefined);
  return [...first, ...props.filter((p) => !first.includes(p))];
}

export function median(xs: readonly number[]): number | undefined {
  if (xs.length === 0) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Runs a load-only fault's load checks: killed when one of them detects it. */
async function runLoadChecks(f: FaultDescriptor, checks: Readonly<Record<string, LoadCheck>>): Promise<FaultResult | undefined> {
  const ids = f.expectedKillers.filter((k) => checks[k]);
  if (ids.length === 0) return undefined;
  const started = Date.now();
  const kills: FaultResult['kills'] = [];
  let requests = 0;
  let message = '';
  for (const id of ids) {
    const v = await checks[id]([f.name]);
    requests += v.requests;
    if (v.detected) {
      kills.push({ property: id, kind: 'violation' });
      message ||= v.message;
    }
  }
  return {
    fault: f.name, area: f.area, description: f.description, expectedKillers: [...f.expectedKillers], loadOnly: true,
    ran: true, killed: kills.length > 0, killedBy: kills.map((k) => k.property), kills, requests, durationMs: Date.now() - started,
    ...(kills[0] ? { first: { property: kills[0].property, kind: 'violation' as const, message } } : {}),
  };
}

type FaultBase = Pick<FaultResult, 'fault' | 'area' | 'description' | 'expectedKillers' | 'loadOnly'>;

/** A fault the run did not reach (interrupted) or could not run (a load-only fault without its checks). */
const notRun = (base: FaultBase): FaultResult => ({ ...base, ran: false, killed: false, killedBy: [], kills: [], requests: 0, durationMs: 0 });

/** Runs the suite against the reference with one fault switched on: killed when a finding detects it. */
async function runFault(
  props: readonly Property[],
  f: FaultDescriptor,
  base: FaultBase,
  startTarget: (faults: readonly string[]) => Promise<StartedTarget>,
  o: MutantsOptions,
): Promise<FaultResult> {
  const t = await startTarget([f.name]);
  let run: RunResult;
  try {
    run = await runProperties(t.profile, orderForFault(props, f), {
      seed: o.seed,
      runs: o.runs,
      embedded: true,
      ...(o.full ? {} : { stopWhen: (x: Finding) => detectsFault(x, f) }),
      endOnFailure: !o.full,
      perPropertyMs: o.perPropertyMs,
      perRequestMs: o.perRequestMs,
      signal: o.signal,
      ...(t.unknownReadings ? { unknownReadings: t.unknownReadings } : {}),
    });
  } finally {
    await t.close();
  }
  const found = run.results.flatMap((r) => r.findings.filter((x) => detectsFault(x, f)));
  const firstKill = [...found].sort((a, b) => (a.detectedAfterRequests ?? Infinity) - (b.detectedAfterRequests ?? Infinity))[0];
  const kills = found.map((x) => ({ property: x.property, kind: x.kind, ...(x.assumption ? { assumption: x.assumption } : {}) }));
  return {
    ...base,
    ran: true,
    killed: found.length > 0,
    killedBy: [...new Set(found.map((x) => x.property))],
    kills,
    ...(firstKill?.detectedAfterRequests !== undefined ? { requestsToDetection: firstKill.detectedAfterRequests } : {}),
    requests: run.requests,
    durationMs: run.durationMs,
    ...(firstKill ? { first: { property: firstKill.property, kind: firstKill.kind, message: firstKill.message,
      ...(firstKill.assumption ? { assumption: firstKill.assumption } : {}), ...(firstKill.replay ? { replay: firstKill.replay } : {}) } } : {}),
  };
}

/** Each fault in turn: a load-only one through its load checks, any other through the suite. */
async function runFaults(
  props: readonly Property[],
  faults: readonly FaultDescriptor[],
  startTarget: (faults: readonly string[]) => Promise<StartedTarget>,
  o: MutantsOptions,
): Promise<FaultResult[]> {
  const results: FaultResult[] = [];
  for (const f of faults) {
    const loadOnly = isLoadOnly(f);
    const base: FaultBase = { fault: f.name, area: f.area, description: f.description, expectedKillers: [...f.expectedKillers], loadOnly };
    if (loadOnly) {
      const r = o.signal?.aborted ? undefined : await runLoadChecks(f, o.loadChecks ?? {});
      results.push(r ?? notRun(base));
      if (r) o.onFault?.(r);
      continue;
    }
    if (o.signal?.aborted) {
      results.push(notRun(base));
      continue;
    }
    const r = await runFault(props, f, base, startTarget, o);
    results.push(r);
    o.onFault?.(r);
  }
  return results;
}

/** The suite against the correct reference over `o.seeds` seeds: every finding there is a false one. */
async function runCleanSeeds(props: readonly Property[], startTarget: (faults: readonly string[]) => Promise<StartedTarget>, o: MutantsOptions): Promise<CleanRun[]> {
  const clean: CleanRun[] = [];
  for (let i = 0; i < o.seeds && !o.signal?.aborted; i++) {
    const seed = (o.seed + 1 + i) | 0;
    const t = await startTarget([]);
    const runs = o.cleanRuns ?? o.runs;
    let run: RunResult;
    try {
      // The coverage phase is the same whatever the seed: the first clean run covers it for all.
      run = await runProperties(t.profile, props, { seed, runs: o.cleanRuns ?? o.runs, embedded: true, perPropertyMs: o.perPropertyMs, perRequestMs: o.perRequestMs, signal: o.signal, coverage: i === 0 });
    } finally {
      await t.close();
    }
    const all = run.results.flatMap((r) => r.findings);
    const c: CleanRun = {
      seed,
      requests: run.requests,
      durationMs: run.durationMs,
      // An interrupted run is reported as interrupted, not as an incomplete property for each one it did not reach.
      falseFindings: cleanRunProblems(run.results, props, { profile: t.profile, embedded: true, runs }).filter((p) => !run.interrupted || p.kind !== 'incomplete'),
      assumptionMismatches: all.filter((x) => x.kind === 'assumption').length,
      run,
      profile: t.profile,
    };
    clean.push(c);
    o.onClean?.(c);
  }
  return clean;
}

/** The load checks the faults that ran name (as their only or one of their killers) must stay quiet on the correct reference. */
async function runCleanLoadChecks(results: readonly FaultResult[], o: MutantsOptions): Promise<CleanRun[]> {
  const clean: CleanRun[] = [];
  const usedChecks = [...new Set(results.filter((r) => r.ran).flatMap((r) => r.expectedKillers))].filter((k) => o.loadChecks?.[k]);
  for (const id of usedChecks) {
    if (o.signal?.aborted) break;
    const check = o.loadChecks?.[id];
    if (!check) continue;
    const started = Date.now();
    const v = await check([]);
    const c: CleanRun = {
      seed: o.seed,
      requests: v.requests,
      durationMs: Date.now() - started,
      falseFindings: v.detected ? [{ property: id, kind: 'violation', message: v.message }] : [],
      assumptionMismatches: 0,
      loadCheck: id,
    };
    clean.push(c);
    o.onClean?.(c);
  }
  return clean;
}

/** The faults' and the clean runs' results summed up: killed, survivors, false findings. */
function tally(results: FaultResult[], clean: CleanRun[], o: MutantsOptions): MutantsResult {
  const expected = results.filter((r) => !r.loadOnly || r.ran);
  const survivors = expected.filter((r) => !r.killed).map((r) => r.fault);
  const falseFindings = clean.reduce((n, c) => n + c.falseFindings.length, 0);
  const detections = results.flatMap((r) => (r.requestsToDetection !== undefined ? [r.requestsToDetection] : []));
  const interrupted = Boolean(o.signal?.aborted);
  const med = median(detections);
  return {
    seed: o.seed,
    runs: o.runs,
    faults: results,
    clean,
    killed: expected.filter((r) => r.killed).length,
    expected: expected.length,
    survivors,
    unexpectedlyKilled: results.filter((r) => r.killed && !compareKillers(r).asExpected).map((r) => r.fault),
    falseFindings,
    ...(med !== undefined ? { medianRequestsToDetection: med } : {}),
    interrupted,
  };
}

export async function runMutants(
  props: readonly Property[],
  faults: readonly FaultDescriptor[],
  startTarget: (faults: readonly string[]) => Promise<StartedTarget>,
  o: MutantsOptions,
): Promise<MutantsResult> {
  const results = await runFaults(props, faults, startTarget, o);
  const clean = [...(await runCleanSeeds(props, startTarget, o)), ...(await runCleanLoadChecks(results, o))];
  return tally(results, clean, o);
}

/** JSON-ready summary (without the clean runs' full results), with the exit code the policy gives it, as mutants.json has always had it. */
export function mutantsSummary(r: MutantsResult): object {
  return { ...r, clean: r.clean.map(({ run: _run, profile: _profile, ...c }) => c), exitCode: mutantsExitCode(r) };
}
