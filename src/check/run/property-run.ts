/**
 * One property against the target: skipped for a capability the profile lacks; otherwise its
 * coverage phase, then its random phase, within its time bound; then its status, which the
 * evidence floor decides as much as the findings do.
 */
import type fc from 'fast-check';
import type { TargetClient } from '../../target/client.ts';
import type { Profile } from '../../target/profile.ts';
import { redact } from '../../target/redact.ts';
import { missingCapabilities } from './capabilities.ts';
import type { RequestCounter } from './context.ts';
import type { Environment } from '../judge/environment.ts';
import type { Property } from '../property.ts';
import type { CaseDeps } from './case-runner.ts';
import type { Slots } from './pool.ts';
import { coverageCasesOf, coverageIndex, runCoveragePhase, type CoveragePhase } from './coverage-phase.ts';
import { crashFinding } from './evidence.ts';
import { belowFloor, ledgerLine, ledgerOf, nothingApplies, type Ledger } from './ledger.ts';
import type { PropertyRunOptions } from './options.ts';
import { OutcomeSink } from './outcome-sink.ts';
import { runRandomPhase, type RandomPhase } from './random-phase.ts';
import { isFailing, type Finding, type PropertyResult, type PropertyStatus } from './result.ts';
import { PropertyBound, seconds } from './time-limits.ts';
import { HistoryShelf } from './histories.ts';

export interface PropertyRunDeps {
  readonly profile: Profile;
  readonly client: TargetClient;
  readonly counter: RequestCounter;
  readonly environment: Environment;
  /** Case slots shared with the properties running beside this one. */
  readonly slots?: Slots;
}

export async function runProperty(prop: Property, d: PropertyRunDeps, o: PropertyRunOptions): Promise<PropertyResult> {
  const started = Date.now();
  const clean = (s: string) => redact(s, d.profile.secrets);
  const base = { id: prop.id, section: prop.section };
  const missing = missingCapabilities(d.profile, prop.needs, { embedded: o.embedded });
  if (missing) return { ...base, status: 'skipped', runs: 0, requests: 0, durationMs: 0, findings: [{ kind: 'skipped', property: prop.id, section: prop.section, message: clean(`skipped: ${missing}`) }] };
  const errored = (message: string): PropertyResult => ({ ...base, status: 'error', runs: 0, requests: 0, durationMs: Date.now() - started, findings: [{ kind: 'error', property: prop.id, section: prop.section, message: clean(message) }] });

  const only = o.path === undefined ? undefined : coverageIndex(o.path);
  const covered = (o.coverage && o.path === undefined) || only !== undefined ? coverageCasesOf(prop, d.profile) : { cases: [] };
  if (covered.error) return errored(covered.error);
  const built = only === undefined ? arbitraryOf(prop, d.profile) : {};
  if (built.error) return errored(built.error);
  const arb = built.arb;

  const tally = { requests: 0 };
  const shelf = new HistoryShelf();
  // Throttling is given back to the property's bound, never past the run's budget (the user's hard limit).
  const bound = new PropertyBound(o.perPropertyMs, o.signal, () => d.client.throttleHeldMs(), o.budgetEndsAt);
  const replay = o.path !== undefined;
  const sink = new OutcomeSink(prop, d.profile.secrets, { coverage: only !== undefined ? 1 : covered.cases.length, random: replay || only !== undefined ? 0 : o.runs });
  const deps: CaseDeps = { profile: d.profile, client: d.client, counter: d.counter, signal: bound.signal, tally, ...(d.slots ? { slots: d.slots } : {}), ...(o.perRequestMs !== undefined ? { timeoutMs: o.perRequestMs } : {}), embedded: o.embedded, unknownReadings: o.unknownReadings, environment: d.environment, onHistory: shelf.add };
  const progress = (cases: number, runs: number) => o.onProgress?.({ type: 'case', id: prop.id, cases, runs, requests: tally.requests, elapsedMs: Date.now() - started });
  let cov: CoveragePhase | undefined;
  let rand: RandomPhase | undefined;
  try {
    if (covered.cases.length > 0) {
      cov = await runCoveragePhase(prop, covered.cases, { deps, sink, concurrency: o.concurrency, endOnFailure: o.endOnFailure, ...(only !== undefined ? { only } : {}), onCase: (n) => progress(n, covered.cases.length) });
    }
    const stop = bound.signal.aborted || d.counter.unreachable || d.counter.crash !== undefined || (o.endOnFailure && (cov?.findings.length ?? 0) > 0);
    if (arb && !stop) {
      rand = await runRandomPhase(prop, arb, { deps, sink, seed: o.seed, runs: o.runs, concurrency: o.concurrency, ...(o.path !== undefined ? { path: o.path } : {}), endOnFailure: o.endOnFailure, shrink: o.shrink, onCase: (n) => progress(n, o.runs) });
    }
  } finally {
    bound.dispose();
  }

  const findings = findingsOf(prop, d, sink, cov, rand);
  const crash = d.counter.crash;
  const evidence = ledgerOf(prop.floor, sink.coverage.done(), sink.random.done());
  const failed = findings.some((f) => isFailing(f.kind));
  const cutByBound = bound.signal.aborted && !bound.interrupted && !d.counter.unreachable && !crash;
  const status = statusOf({ failed, interrupted: bound.interrupted, errored: Boolean(rand?.allDiscarded), replay, evidence });
  const why = status === 'inconclusive' ? inconclusiveWhy(evidence, cutByBound, o, bound.throttleCreditMs) : undefined;
  const notApplicable = status === 'skipped' ? `skipped: none of its cases applies under the run's readings (${sink.random.firstNotApplicable ?? sink.coverage.firstNotApplicable ?? 'not applicable'})` : undefined;
  return {
    ...base,
    status,
    ...(cutByBound && !failed ? { timeBound: { planned: o.runs, ...(o.budgetShareMs !== undefined ? { budgetShareMs: o.budgetShareMs } : {}) } } : {}),
    ...(why ? { inconclusive: clean(why) } : {}),
    runs: rand?.ran ?? 0,
    requests: tally.requests,
    durationMs: Date.now() - started,
    findings: notApplicable ? [{ kind: 'skipped', property: prop.id, section: prop.section, message: clean(notApplicable) }, ...findings] : findings,
    evidence,
    ...(cov?.observations.length ? { coverage: { cases: cov.ran, observations: cov.observations } } : {}),
    ...shelf.result(),
  };
}

/** The property's generator for this profile, or why it could not be built. */
function arbitraryOf(prop: Property, profile: Profile): { arb?: fc.Arbitrary<unknown>; error?: string } {
  try {
    return { arb: prop.arbitrary(profile) };
  } catch (err) {
    return { error: `pouchproof could not build the property's cases: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** The phases' findings, the crash that ended them (once), and the sink's. */
function findingsOf(prop: Property, d: PropertyRunDeps, sink: OutcomeSink, cov: CoveragePhase | undefined, rand: RandomPhase | undefined): Finding[] {
  const findings: Finding[] = [...(cov?.findings ?? []), ...(rand?.findings ?? [])];
  const crash = d.counter.crash;
  if (crash) {
    const at = cov?.crashed ?? rand?.crashed?.run;
    // Properties side by side may each have had a case in flight when the target went down: the first to end names it.
    if (at && d.counter.claimCrash(prop.id)) findings.push(crashFinding(prop, crash, at, d.profile.secrets, { ...(rand?.crashed ? { replay: rand.crashed.replay } : {}), detectedAfterRequests: at.requestsAtEnd }));
  }
  if (rand?.allDiscarded) {
    findings.push({ kind: 'error', property: prop.id, section: prop.section, message: `every generated case was discarded by stillValid (${rand.allDiscarded} skipped): the property's generator and its label disagree` });
  }
  // A target that went down explains the transport failures of the cases in flight around it (they ran
  // side by side, so their order says nothing): the crash finding names it, once.
  findings.push(...sink.findings().filter((f) => !(crash && f.kind === 'transport')));
  return findings;
}

function statusOf(s: { failed: boolean; interrupted: boolean; errored: boolean; replay: boolean; evidence: Ledger }): PropertyStatus {
  if (s.failed) return 'failed';
  if (s.errored) return 'error';
  if (s.interrupted) return 'interrupted';
  const judged = s.evidence.coverage.judged + s.evidence.random.judged;
  // A replay vouches for the cases it re-ran, whatever the floor of a whole run.
  if (s.replay) return judged > 0 ? 'passed' : 'inconclusive';
  if (nothingApplies(s.evidence)) return 'skipped';
  return belowFloor(s.evidence) === undefined && judged > 0 ? 'passed' : 'inconclusive';
}

/** Why a property could not vouch for its invariant, in one line. */
function inconclusiveWhy(l: Ledger, cutByBound: boolean, o: PropertyRunOptions, throttleCreditMs = 0): string {
  const credit = throttleCreditMs > 0 ? ` and ${seconds(throttleCreditMs)} given back for the target's throttling` : '';
  const bound = o.budgetShareMs !== undefined ? `its share of the run's time budget (${seconds(o.budgetShareMs)}${credit})` : `its time bound (${seconds(o.perPropertyMs)}${credit})`;
  const short = belowFloor(l) ?? `judged ${ledgerLine(l)}`;
  return `${short}${cutByBound ? `; ${bound} ended it` : ''}`;
}
