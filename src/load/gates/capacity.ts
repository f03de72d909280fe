/**
 * Capacity search (`pouchproof load --find-capacity 'p99<50ms'`): the highest open-model rate at
 * which the target meets a latency objective with errors under a bound. Rates grow by doubling from
 * a start rate until a step breaks the objective (or halve until one meets it), then the last rate
 * within and the first beyond are bisected down to a resolution. Every step is a whole open-model
 * run at one offered rate (its closed-model warm-up discarded), latency counted from each request's
 * intended send time, so an overloaded server shows as a queue growing through the step.
 *
 * Bounded three ways: a step count, a total time budget (a step is never started that would end
 * past it) and the maximum rate. A step that breaks the objective while the generator itself was
 * saturated ends the search: the knee there would be the generator's, not the target's.
 */
import { withTarget } from '../../target/resolve.ts';
import { LoadUsageError, runLoad, type RunLoadOptions, type RunLoadOutput } from '../launch.ts';
import type { CapacityBounds, CapacityPhase, CapacitySearch, CapacityStatus, CapacityStep, LoadRunResult } from '../result.ts';
import { parseThreshold, type Threshold } from './thresholds.ts';
import { errorMessage } from '../../spec/index.ts';

export interface CapacityOptions {
  /** One or more absolute thresholds, comma-separated: 'p99<50ms' or 'p99<50ms,errors<0.1%'. */
  readonly objective: string;
  readonly startRate?: number;
  readonly maxRate?: number;
  /** How long each step is measured (at least `minRequests` worth of the offered rate). */
  readonly stepMs?: number;
  /** The whole search, warm-ups included. */
  readonly budgetMs?: number;
  readonly maxSteps?: number;
  /** Bisecting stops once (first beyond − last within) / last within is at most this. */
  readonly resolution?: number;
  /** A step lasts long enough to measure this many requests at its rate, up to 4 × stepMs. */
  readonly minRequests?: number;
}

export const CAPACITY_DEFAULTS = {
  startRate: 100,
  maxRate: 100_000,
  stepMs: 5000,
  budgetMs: 120_000,
  maxSteps: 16,
  resolution: 0.05,
  minRequests: 100,
} as const;

/** Added to an objective that bounds no error rate: a server that fails fast is not within it. */
export const DEFAULT_ERROR_BOUND = 'errors<1%';
/** Halving below this rate stops: nothing was within. */
export const MIN_CAPACITY_RATE = 1;
/**
 * Sent at under this share of the offered rate with nothing waiting for a connection: the
 * generator's own timers ran that late. A little shortfall is usual on a short step (the engine
 * stops at the end of the window, and due times a late last tick had not reached are not sent).
 */
const SENT_SHARE = 0.75;

/** The objective's thresholds, with the default error bound when it names none. */
export function parseObjective(objective: string): Threshold[] {
  const parts = objective.split(',').map((s) => s.trim()).filter(Boolean);
  if (parts.length === 0) throw new LoadUsageError(`--find-capacity needs an objective, e.g. 'p99<50ms' or 'p99<50ms,errors<0.1%'`);
  const list = parts.map((p) => {
    try {
      return parseThreshold(p);
    } catch (e) {
      throw new LoadUsageError(`--find-capacity: ${errorMessage(e)}`);
    }
  });
  return list.some((t) => t.metric === 'errors') ? list : [...list, parseThreshold(DEFAULT_ERROR_BOUND)];
}

interface Plan extends CapacityBounds {
  readonly objective: readonly Threshold[];
  readonly minRequests: number;
}

function positive(name: string, v: number, integer = false): number {
  if (!Number.isFinite(v) || v <= 0 || (integer && !Number.isInteger(v))) throw new LoadUsageError(`${name} must be a positive ${integer ? 'integer' : 'number'}`);
  return v;
}

export function capacityPlan(c: CapacityOptions): Plan {
  const d = CAPACITY_DEFAULTS;
  const maxRate = positive('--max-rate', c.maxRate ?? d.maxRate);
  const startRate = Math.min(positive('the start rate (--rate)', c.startRate ?? Math.min(d.startRate, maxRate)), maxRate);
  const stepMs = positive('--step-duration', c.stepMs ?? d.stepMs);
  const budgetMs = positive('the search budget (--duration)', c.budgetMs ?? d.budgetMs);
  if (budgetMs < stepMs) throw new LoadUsageError(`the search budget (--duration ${budgetMs / 1000} s) must cover at least one step (--step-duration ${stepMs / 1000} s)`);
  const resolution = positive('the resolution', c.resolution ?? d.resolution);
  const minRequests = c.minRequests ?? d.minRequests;
  if (!(minRequests >= 0)) throw new LoadUsageError('the minimum requests per step must not be negative');
  return { objective: parseObjective(c.objective), startRate, maxRate, stepMs, budgetMs, maxSteps: positive('the step count', c.maxSteps ?? d.maxSteps, true), resolution, minRequests };
}

/** Rates as people write them: three significant digits. */
export function roundRate(r: number): number {
  const p = 10 ** (Math.floor(Math.log10(r)) - 2);
  return Math.round(r / p) * p;
}

/**
 * What a step costs beyond its measured window (warm-up, starting workers, the answers still in
 * flight at its end): before any step ran, the engine's warm-up (execute.ts) and half a second; then
 * what the last step took (the first one also pays for compiling the hot paths, the later ones
 * for the answers a queue holds at their end).
 */
function overheadMs(durationMs: number, seen: readonly number[]): number {
  return seen.at(-1) ?? Math.min(1000, Math.max(100, durationMs / 10)) + 500;
}

function toStep(index: number, phase: CapacityPhase, offered: number, r: LoadRunResult, objective: readonly Threshold[]): CapacityStep {
  const judged = r.thresholds.slice(0, objective.length);
  const sent = (r.totals.sent * 1000) / r.durationMs;
  const shortfall = sent < SENT_SHARE * offered && r.totals.unsent === 0 && r.totals.dropped === 0;
  const elu = Math.max(0, ...r.generator.loopUtilization);
  const shared = r.workers === 0 && r.target.embedded ? ', a thread it shares with the embedded reference (--workers 0)' : '';
  const generatorNote = shortfall
    ? `its timers ran late: it sent ${sent.toFixed(0)} req/s of ${offered} offered with no request waiting for a connection`
    : `its event loop was ${(elu * 100).toFixed(0)}% busy${shared}`;
  return {
    index,
    phase,
    offered,
    sent,
    rps: r.rates.rps,
    goodput: r.rates.goodput,
    errorRate: r.errorRate,
    latency: r.latency,
    measuredMs: r.durationMs,
    objective: judged,
    within: judged.every((t) => t.passed) && !r.interrupted,
    generatorLimited: r.generator.limited || shortfall,
    generatorNote,
  };
}

const n0 = (x: number): string => Math.round(x).toLocaleString('en-US');
/** An offered rate as the search chose it: whole from 100 up, three significant digits below. */
export const rateText = (r: number): string => (r >= 100 ? n0(r) : String(Number(r.toPrecision(3))));

function describe(status: CapacityStatus, plan: Plan, steps: readonly CapacityStep[], lo: number | undefined, hi: number | undefined): string {
  const within = `within ${plan.objective.map((t) => t.source).join(', ')}`;
  const at = lo === undefined ? '' : `${rateText(lo)} req/s ${within}`;
  const beyond = hi === undefined ? '' : steps.find((s) => s.offered === hi);
  const broke = beyond && hi !== undefined ? ` (${rateText(hi)} req/s broke ${beyond.objective.filter((t) => !t.passed).map((t) => `${t.threshold}: ${t.actualText}`).join(', ')})` : '';
  switch (status) {
    case 'found': return `capacity: ${at}${broke}`;
    case 'at-max-rate': return `capacity: at least ${at}: the highest rate allowed (--max-rate) held`;
    case 'generator-limited': {
      // a capacity search ends with at least one step
      const g = steps.at(-1)!;
      return `capacity: ${lo === undefined ? 'not established' : `at least ${at}`}; at ${rateText(g.offered)} req/s the load generator itself was the limit (${g.generatorNote}), so the knee there is the generator's, not the target's: add --workers or cores`;
    }
    case 'budget-spent': return lo === undefined
      ? `capacity: not established: the search's budget (${steps.length} steps, ${plan.budgetMs / 1000} s) ran out before any rate was within${broke}`
      : `capacity: at least ${at}; the search's budget (${plan.maxSteps} steps, ${plan.budgetMs / 1000} s) ran out before the knee was narrowed to ${(plan.resolution * 100).toFixed(0)}%${broke}`;
    // a capacity search ends with at least one step
    case 'none-within': return `capacity: none: even ${rateText(steps.at(-1)!.offered)} req/s was not ${within}${broke}`;
    case 'interrupted': return `capacity: search interrupted${lo === undefined ? '' : `; at least ${at}`}`;
    default: return status satisfies never;
  }
}

/**
 * Runs the search against one target (resolved once, so an embedded reference keeps its state from
 * step to step). The result is the run at capacity (or the last step when none was within), with
 * every step in `capacity`.
 */
export async function findCapacity(o: RunLoadOptions, c: CapacityOptions): Promise<RunLoadOutput> {
  const plan = capacityPlan(c);
  if (o.scenario.scenario.sweep) throw new LoadUsageError(`scenario ${o.scenario.scenario.name} sweeps request sizes; a capacity search needs a steady request mix`);
  const judged = [...plan.objective.map((t) => t.source), ...(o.thresholds ?? [])];
  return withTarget(o.target, async (target) => {
    const t0 = Date.now();
    const steps: CapacityStep[] = [];
    let best: RunLoadOutput | undefined;
    let last: RunLoadOutput | undefined;
    let lo: number | undefined;
    let hi: number | undefined;
    let next: { rate: number; phase: CapacityPhase } | undefined = { rate: plan.startRate, phase: 'grow' };
    let status: CapacityStatus = 'budget-spent';
    const overheads: number[] = [];
    while (next) {
      if (o.signal?.aborted) {
        status = 'interrupted';
        break;
      }
      const durationMs = Math.min(4 * plan.stepMs, Math.max(plan.stepMs, Math.ceil((plan.minRequests * 1000) / next.rate)));
      if (steps.length >= plan.maxSteps || Date.now() - t0 + durationMs + overheadMs(durationMs, overheads) > plan.budgetMs) break;
      const started = Date.now();
      const out = await runLoad({ ...o, target, rate: next.rate, durationMs, thresholds: judged, onProgress: undefined });
      overheads.push(Math.max(0, Date.now() - started - durationMs));
      const step = toStep(steps.length + 1, next.phase, next.rate, out.result, plan.objective);
      steps.push(step);
      last = out;
      o.onProgress?.(stepLine(step));
      if (out.result.interrupted) {
        status = 'interrupted';
        break;
      }
      if (step.within) {
        if (lo === undefined || step.offered > lo) [lo, best] = [step.offered, out];
      } else if (hi === undefined || step.offered < hi) hi = step.offered;
      if (!step.within && step.generatorLimited) {
        status = 'generator-limited';
        break;
      }
      const decided = decide(plan, step, lo, hi);
      if ('status' in decided) {
        status = decided.status;
        break;
      }
      next = decided;
    }
    return searchOutcome(plan, { status, steps, lo, hi, best, last, t0 });
  }, o);
}

/** Where a search stopped: its status, its steps, the bounds found, and the runs to show. */
interface SearchEnd {
  readonly status: CapacityStatus;
  readonly steps: CapacityStep[];
  readonly lo: number | undefined;
  readonly hi: number | undefined;
  readonly best: RunLoadOutput | undefined;
  readonly last: RunLoadOutput | undefined;
  readonly t0: number;
}

/** The run at capacity (or the last step when none was within), carrying the whole search. */
function searchOutcome(plan: Plan, { status, steps, lo, hi, best, last, t0 }: SearchEnd): RunLoadOutput {
  const { objective, minRequests: _, ...bounds } = plan;
  const search: CapacitySearch = {
    ...bounds,
    objective: objective.map((t) => t.source),
    status,
    ...(lo !== undefined ? { capacity: lo } : {}),
    ...(hi !== undefined ? { firstBeyond: hi } : {}),
    message: describe(status, plan, steps, lo, hi),
    steps,
    elapsedMs: Date.now() - t0,
  };
  const shown = best ?? last;
  if (!shown) throw new LoadUsageError(`the search budget (--duration ${plan.budgetMs / 1000} s) does not cover one step of ${plan.stepMs / 1000} s with its warm-up`);
  // No capacity within the objective fails the run (loadExitCode reads `capacity`).
  return { secrets: shown.secrets, result: { ...shown.result, capacity: search, interrupted: status === 'interrupted' } };
}

type Decision = { rate: number; phase: CapacityPhase } | { status: CapacityStatus };

/** The next rate to try, or why the search ends. */
export function decide(plan: Pick<Plan, 'maxRate' | 'resolution'>, step: Pick<CapacityStep, 'offered'>, lo: number | undefined, hi: number | undefined): Decision {
  if (lo === undefined) {
    if (step.offered <= MIN_CAPACITY_RATE) return { status: 'none-within' };
    return { rate: Math.max(MIN_CAPACITY_RATE, roundRate(step.offered / 2)), phase: 'shrink' };
  }
  if (hi === undefined) {
    if (lo >= plan.maxRate) return { status: 'at-max-rate' };
    return { rate: Math.min(plan.maxRate, roundRate(lo * 2)), phase: 'grow' };
  }
  if ((hi - lo) / lo <= plan.resolution) return { status: 'found' };
  const mid = roundRate((lo + hi) / 2);
  return mid > lo && mid < hi ? { rate: mid, phase: 'bisect' } : { status: 'found' };
}

const ms = (us: number): string => (us / 1000).toFixed(us >= 100_000 ? 0 : 1);

export function stepLine(s: CapacityStep): string {
  const verdict = s.within ? 'within' : `beyond (${s.objective.filter((t) => !t.passed).map((t) => `${t.threshold}: ${t.actualText}`).join(', ')})`;
  return `  step ${s.index} (${s.phase}): ${rateText(s.offered)} req/s offered, ${n0(s.rps)} answered/s; p50 ${ms(s.latency.p50)} ms, p99 ${ms(s.latency.p99)} ms, errors ${(s.errorRate * 100).toFixed(2)}% — ${verdict}${s.generatorLimited ? '; generator saturated' : ''}`;
}
