/**
 * The run: the selected properties in the steps schedule.ts plans (each alone, in the selection's
 * order, unless `propertiesAtOnce` lets those whose state is all fresh run side by side; a property may
 * rely on its own ordering, and its cases run side by side within it), each within its bound and its
 * share of the run's budget; a target that goes down or stops answering ends the run with one
 * finding instead of a timeout per case. Results keep the selection's order whatever order they ended in.
 */
import { must } from '../../spec/index.ts';
import { probeConnection } from '../../target/connect-probe.ts';
import { TargetClient } from '../../target/client.ts';
import type { Profile } from '../../target/profile.ts';
import { redact } from '../../target/redact.ts';
import { missingCapabilities } from './capabilities.ts';
import { RequestCounter } from './context.ts';
import { coverageTable } from './coverage-table.ts';
import { Environment } from '../judge/environment.ts';
import type { Property } from '../property.ts';
import { selectProperties } from './select.ts';
import { couldNotVouch } from './exit-code.ts';
import { DEFAULT_PROPERTY_MS, makeRunId, propertyOptions, type PropertyRunOptions, type RunOptions } from './options.ts';
import { runProperty, type PropertyRunDeps } from './property-run.ts';
import { isFailing, type ExampleReplay, type PropertyResult, type RunResult } from './result.ts';
import { replayExamples, withExamples } from './examples.ts';
import { Budget, seconds } from './time-limits.ts';
import { inPool, Slots } from './pool.ts';
import { stepsOf, unitsLeft } from './schedule.ts';

/** A counter that confirms a refused or dropped connection with a fresh one (see `RequestCounter`). */
export function newCounter(profile: Profile): RequestCounter {
  return new RequestCounter(async () => {
    const p = await probeConnection(profile, profile.timeouts.connectMs);
    // Only a refusal is evidence that nothing listens; a slow connection is not.
    return { ok: !p.refused, reason: p.reason };
  });
}

const emptyResult = (prop: Property, status: PropertyResult['status'], more: Partial<PropertyResult> = {}): PropertyResult => ({
  id: prop.id, section: prop.section, status, runs: 0, requests: 0, durationMs: 0, findings: [], ...more,
});

export async function runProperties(profile: Profile, props: readonly Property[], o: RunOptions): Promise<RunResult> {
  const started = Date.now();
  const selected = selectProperties(props, o.only, o.exclude);
  const client = o.client ?? new TargetClient(profile, { nemesisSeed: o.seed, ...(o.rateLimitPerSecond !== undefined ? { throttle: { ratePerSecond: o.rateLimitPerSecond } } : {}) });
  const counter = newCounter(profile);
  const environment = new Environment();
  const budget = new Budget(o.maxDurationMs !== undefined ? (o.budgetFrom ?? started) + o.maxDurationMs : undefined);
  const runnable = selected.map((p) => missingCapabilities(profile, p.needs, { embedded: o.embedded ?? false }) === undefined);
  const results: PropertyResult[] = new Array(selected.length);
  const [cut, notRun]: string[][] = [[], []];
  const stop = new FailureStop(o.maxFailures);
  const examples: ExampleReplay[] = [];
  const steps = stepsOf(selected, o.propertiesAtOnce ?? 1);
  const begun = new Set<number>();
  // Shared only when properties run side by side: the profile's connections bound the cases in flight, whatever the properties.
  const slots = steps.some((s) => s.atOnce > 1) ? new Slots(profile.caseConcurrency) : undefined;
  let ended = 0;
  const health = new TargetHealth(profile, counter, o.perRequestMs);
  const runOne = async (i: number): Promise<void> => {
    const prop = selected[i];
    // Counted before this property begins, so its own start is among those left and it gets its share.
    const left = unitsLeft(steps, begun, runnable);
    begun.add(i);
    if (o.signal?.aborted) {
      results[i] = emptyResult(prop, 'interrupted');
      return;
    }
    if (health.stopReason) {
      results[i] = emptyResult(prop, 'skipped', { findings: [{ kind: 'skipped', property: prop.id, section: prop.section, message: health.stopReason }] });
      return;
    }
    if (stop.reached) return void (results[i] = stop.notRun(prop));
    const perPropertyMs = o.perPropertyMs ?? DEFAULT_PROPERTY_MS;
    const share = runnable[i] ? budget.shareFor(perPropertyMs, left) : { perPropertyMs };
    if ('spent' in share) {
      notRun.push(prop.id);
      results[i] = emptyResult(prop, 'inconclusive', { inconclusive: `not run: the run's time budget (${seconds(must(o.maxDurationMs, 'a share is spent only under a time budget (--max-duration)'))}) was spent` });
      return;
    }
    o.onProgress?.({ type: 'property-start', id: prop.id, section: prop.section, index: i, total: selected.length });
    const deps = { profile, client, counter, environment, ...(slots ? { slots } : {}) };
    const r = await storedThenOwn(prop, deps, propertyOptions(prop, profile, o, { ...share, ...budget.endsAt() }), runnable[i] ? o.examples?.get(prop.id) : undefined, (e) => (examples.push(e), o.onExample?.(e)));
    if (r.timeBound?.budgetShareMs !== undefined) cut.push(r.id);
    results[i] = r;
    health.after(r, prop);
    o.onProgress?.({ type: 'property-end', result: r, index: i, total: selected.length, ended: ++ended });
    if (o.stopWhen && r.findings.some(o.stopWhen)) health.stopReason ??= 'not run: the run stopped at the first finding';
    stop.after(r);
  };
  try {
    for (const step of steps) await inPool(step.indices, step.atOnce, runOne, () => false);
  } finally {
    if (!o.client) await client.close().catch(() => undefined);
  }
  const nemesis = client.nemesisSummary();
  const throttle = client.throttling();
  const throttling = throttle.throttled > 0 || throttle.limitPerSecond !== undefined ? throttle : undefined;
  const { unreachable, tooSlow } = health;
  return summarise(profile, results, o, { started, requests: counter.total, unreachable, cut, notRun, ...(throttling ? { throttling } : {}), ...(tooSlow ? { tooSlow } : {}), ...(stop.stopped ? { stopped: stop.stopped } : {}), ...(examples.length ? { examples } : {}), ...(nemesis ? { nemesis } : {}) });
}

/**
 * What the target's state after a property means for the rest of the run: gone down, too slow to
 * judge, or no longer answering ends it, said once (in the findings of the property that saw it
 * first; side by side, the others in flight end on their own as the counter says).
 */
class TargetHealth {
  stopReason?: string;
  unreachable?: string;
  tooSlow?: string;

  constructor(private readonly profile: Profile, private readonly counter: RequestCounter, private readonly perRequestMs: number | undefined) {}

  after(r: PropertyResult, prop: Property): void {
    const { counter, profile } = this;
    const slow = counter.tooSlow;
    if (counter.crash) this.stopReason ??= `not run: the target went down (see the crash finding of ${counter.crashNamedBy ?? prop.id})`;
    else if (slow && !counter.unreachable) {
      if (!this.tooSlow) {
        // Waiting out the rest of the budget on timeouts would vouch for nothing: said once, and the run ends.
        this.tooSlow = redact(`the target timed out on ${slow.timeouts} of the last ${slow.of} requests (each given ${this.perRequestMs ?? profile.timeouts.requestMs} ms): too slow to judge at this bound`, profile.secrets);
        r.findings.push({ kind: 'transport', property: prop.id, section: prop.section, message: `${this.tooSlow}; the run stops here (raise --per-request-ms or timeouts.requestMs to judge a slower target)` });
      }
      this.stopReason ??= 'not run: the target was too slow to judge';
    } else if (counter.unreachable) {
      if (!this.unreachable) {
        // A target that completes no response cannot be judged: said once, loudly, instead of timing out every case.
        this.unreachable = redact(`the target stopped answering: ${counter.silent} requests in a row got no complete response (last: ${counter.lastSilence})`, profile.secrets);
        r.findings.push({ kind: 'transport', property: prop.id, section: prop.section, message: `${this.unreachable}; the run stops here` });
      }
      this.stopReason ??= 'not run: the target stopped answering';
    }
  }
}

/** The property's stored failing cases first (the example database), then its own phases; the still failing join its findings. */
async function storedThenOwn(prop: Property, deps: PropertyRunDeps, po: PropertyRunOptions, stored: readonly string[] | undefined, told: (e: ExampleReplay) => void): Promise<PropertyResult> {
  const ex = stored?.length ? await replayExamples(prop, stored, deps, po) : undefined;
  for (const e of ex?.replays ?? []) told(e);
  const own = await runProperty(prop, deps, po);
  return ex ? withExamples(own, ex) : own;
}

/**
 * `--max-failures N`: once N properties have failed, those not yet begun are not run and are listed
 * (as the time budget lists what it left); properties already in flight beside others end as they would.
 */
class FailureStop {
  private failed = 0;
  private readonly left: string[] = [];

  constructor(private readonly max: number | undefined) {}

  get reached(): boolean {
    return this.max !== undefined && this.failed >= this.max;
  }

  after(r: PropertyResult): void {
    if (r.status === 'failed') this.failed++;
  }

  notRun(prop: Property): PropertyResult {
    this.left.push(prop.id);
    return emptyResult(prop, 'inconclusive', { inconclusive: `not run: the run stopped after ${this.max} failing propert${this.max === 1 ? 'y' : 'ies'} (--max-failures ${this.max})` });
  }

  get stopped(): RunResult['stopped'] {
    return this.max !== undefined && this.left.length ? { maxFailures: this.max, notRun: this.left } : undefined;
  }
}

function summarise(profile: Profile, results: PropertyResult[], o: RunOptions, s: { started: number; requests: number; unreachable?: string; cut: string[]; notRun: string[]; throttling?: RunResult['throttling']; tooSlow?: string; stopped?: RunResult['stopped']; examples?: readonly ExampleReplay[]; nemesis?: RunResult['nemesis'] }): RunResult {
  const vouch = couldNotVouch(results);
  const inconclusive = s.tooSlow ? `${s.tooSlow}${vouch ? `; ${vouch}` : ''}` : vouch;
  const hints = [...new Set(results.flatMap((r) => r.findings.map((f) => f.hint).filter((h): h is string => h !== undefined)))];
  const detections = results.flatMap((r) => r.findings).flatMap((f) => (isFailing(f.kind) && f.detectedAfterRequests !== undefined ? [f.detectedAfterRequests] : []));
  const observed = results.flatMap((r) => r.coverage?.observations ?? []);
  return {
    runId: o.runId ?? makeRunId(o.seed, new Date(s.started)),
    seed: o.seed,
    target: redact(profile.baseUrl, profile.secrets),
    startedAt: new Date(s.started).toISOString(),
    durationMs: Date.now() - s.started,
    results,
    requests: s.requests,
    interrupted: o.signal?.aborted ?? false,
    ...(s.unreachable ? { unreachable: s.unreachable } : {}),
    ...(inconclusive ? { inconclusive } : {}),
    ...(hints.length ? { hints } : {}),
    ...(s.throttling ? { throttling: s.throttling } : {}),
    ...(s.nemesis ? { nemesis: s.nemesis } : {}),
    ...(s.stopped ? { stopped: s.stopped } : {}),
    ...(s.examples ? { examples: s.examples } : {}),
    ...(o.maxDurationMs !== undefined ? { budget: { maxDurationMs: o.maxDurationMs, cut: s.cut, notRun: s.notRun } } : {}),
    ...(s.tooSlow ? { tooSlow: s.tooSlow } : {}),
    ...(o.failOn?.length ? { failOn: o.failOn } : {}),
    ...(detections.length ? { firstDetectionAfterRequests: Math.min(...detections) } : {}),
    ...(observed.length ? { coverage: coverageTable(observed) } : {}),
  };
}
