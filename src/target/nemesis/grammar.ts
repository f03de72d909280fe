/**
 * The nemesis's SPEC (`--nemesis`, a profile's `nemesis`): comma-separated items, each a fault with
 * its rate or schedule, or a term of the retry policy. One grammar for the flag and the profile, so
 * both refuse the same text with the same one-line message.
 *
 *   SPEC      := ITEM ("," ITEM)*
 *   ITEM      := "lose-response=" RATE | "reset-mid-request=" RATE | "duplicate=" RATE
 *              | "delay=" DURATION [".." DURATION] ["@" RATE]
 *              | "partition=" DURATION "@" DURATION ["/" DURATION]   (length @ start [/ every])
 *              | "retries=" INTEGER | "backoff=" DURATION
 *   RATE      := NUMBER "%" | NUMBER            (a fraction from 0 to 1)
 *   DURATION  := NUMBER ("ms" | "s" | "m")
 */

/** The faults a request can meet, as the reports name them. */
export const NEMESIS_FAULTS = ['lose-response', 'reset-mid-request', 'duplicate', 'delay', 'partition'] as const;
export type NemesisFault = (typeof NEMESIS_FAULTS)[number];

const POLICY_TERMS = ['retries', 'backoff'] as const;

/** A partition window: `lengthMs` from `startMs` after the nemesis starts, again every `everyMs` if given. */
export interface PartitionWindow {
  readonly lengthMs: number;
  readonly startMs: number;
  readonly everyMs?: number;
}

/** How a request that got no answer is sent again: `count` more copies at most, waiting `backoffMs` doubled each time. */
export interface RetryPolicy {
  readonly count: number;
  readonly backoffMs: number;
}

export interface NemesisPlan {
  /** Shares of requests (0 to 1); one draw per request picks at most one of the three. */
  readonly loseResponse: number;
  readonly resetMidRequest: number;
  readonly duplicate: number;
  /** Latency added before a request is passed on: uniform in [minMs, maxMs], on a `rate` share of requests. */
  readonly delay?: { readonly minMs: number; readonly maxMs: number; readonly rate: number };
  readonly partitions: readonly PartitionWindow[];
  readonly retry: RetryPolicy;
  /** The SPEC as given, for the reports' first line. */
  readonly text: string;
}

/** Real clients retry a few times: three more copies, 50 ms apart and doubling. */
export const DEFAULT_RETRY: RetryPolicy = Object.freeze({ count: 3, backoffMs: 50 });
const MAX_RETRIES = 20;
const MAX_DURATION_MS = 24 * 3600_000;

/** A SPEC pouchproof cannot read: the message is one line, naming the item at fault. */
export class NemesisSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NemesisSpecError';
  }
}

export function parseNemesis(text: string): NemesisPlan {
  const items = text.split(',').map((s) => s.trim());
  if (text.trim() === '' || items.some((i) => i === '')) throw new NemesisSpecError(`empty item in "${text}": expected e.g. lose-response=2%,reset-mid-request=1%`);
  const plan: MutablePlan = { loseResponse: 0, resetMidRequest: 0, duplicate: 0, partitions: [], retry: { ...DEFAULT_RETRY } };
  const seen = new Set<string>();
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new NemesisSpecError(`"${item}": expected NAME=VALUE, e.g. lose-response=2%`);
    const name = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (seen.has(name) && name !== 'partition') throw new NemesisSpecError(`"${name}" given twice`);
    seen.add(name);
    applyItem(plan, name, value, item);
  }
  if (plan.loseResponse + plan.resetMidRequest + plan.duplicate > 1) {
    throw new NemesisSpecError('lose-response, reset-mid-request and duplicate share one draw per request: their rates add up to more than 100%');
  }
  return Object.freeze({ ...plan, partitions: Object.freeze(plan.partitions), retry: Object.freeze(plan.retry), text: items.join(',') });
}

type MutablePlan = { loseResponse: number; resetMidRequest: number; duplicate: number; delay?: NemesisPlan['delay']; partitions: PartitionWindow[]; retry: { count: number; backoffMs: number } };

function applyItem(plan: MutablePlan, name: string, value: string, item: string): void {
  switch (name) {
    case 'lose-response':
      plan.loseResponse = rate(value, item);
      return;
    case 'reset-mid-request':
      plan.resetMidRequest = rate(value, item);
      return;
    case 'duplicate':
      plan.duplicate = rate(value, item);
      return;
    case 'delay':
      plan.delay = delay(value, item);
      return;
    case 'partition':
      plan.partitions.push(partition(value, item));
      return;
    case 'retries': {
      const n = /^\d+$/.test(value) ? Number(value) : NaN;
      if (!(n >= 0 && n <= MAX_RETRIES)) throw new NemesisSpecError(`"${item}": retries is a whole number from 0 to ${MAX_RETRIES}`);
      plan.retry.count = n;
      return;
    }
    case 'backoff':
      plan.retry.backoffMs = duration(value, item, true);
      return;
    default:
      throw new NemesisSpecError(`unknown item "${name}" (known: ${[...NEMESIS_FAULTS, ...POLICY_TERMS].join(', ')})`);
  }
}

function rate(v: string, item: string): number {
  const m = /^(\d+(?:\.\d+)?)(%?)$/.exec(v);
  const r = m ? Number(m[1]) / (m[2] ? 100 : 1) : NaN;
  if (!(r >= 0 && r <= 1)) throw new NemesisSpecError(`"${item}": expected a rate such as 2% or 0.02 (0 to 100%)`);
  return r;
}

function duration(v: string, item: string, zeroOk = false): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(v);
  const ms = m ? Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 's' ? 1000 : 60_000) : NaN;
  if (!(ms >= (zeroOk ? 0 : 1) && ms <= MAX_DURATION_MS)) throw new NemesisSpecError(`"${item}": expected a duration such as 20ms, 5s or 2m, got "${v}"`);
  return ms;
}

function delay(v: string, item: string): NemesisPlan['delay'] {
  const [span = '', share] = v.split('@');
  const [lo = '', hi] = span.split('..');
  const minMs = duration(lo, item, true);
  const maxMs = hi === undefined ? minMs : duration(hi, item, true);
  if (maxMs < minMs) throw new NemesisSpecError(`"${item}": the range's upper bound is below its lower one`);
  return Object.freeze({ minMs, maxMs, rate: share === undefined ? 1 : rate(share, item) });
}

function partition(v: string, item: string): PartitionWindow {
  const m = /^([^@/]+)@([^@/]+)(?:\/([^@/]+))?$/.exec(v);
  if (!m) throw new NemesisSpecError(`"${item}": expected partition=LENGTH@START[/EVERY], e.g. partition=5s@30s`);
  // Groups 1 and 2 are not optional in the pattern: a match has them; group 3 may be absent.
  const [, length, start, every] = m;
  const lengthMs = duration(length, item);
  const startMs = duration(start, item, true);
  if (every === undefined) return Object.freeze({ lengthMs, startMs });
  const everyMs = duration(every, item);
  if (everyMs <= lengthMs) throw new NemesisSpecError(`"${item}": a partition must repeat less often than it lasts (EVERY > LENGTH)`);
  return Object.freeze({ lengthMs, startMs, everyMs });
}

/** When the partition holding `t` (ms since the nemesis started) ends, or undefined when none holds it. */
export function partitionEnd(plan: Pick<NemesisPlan, 'partitions'>, t: number): number | undefined {
  let end: number | undefined;
  for (const w of plan.partitions) {
    if (t < w.startMs) continue;
    const from = w.everyMs === undefined ? w.startMs : w.startMs + Math.floor((t - w.startMs) / w.everyMs) * w.everyMs;
    if (t < from + w.lengthMs) end = Math.max(end ?? 0, from + w.lengthMs);
  }
  return end;
}

/** What the nemesis did over a run, for the console and the reports. */
export interface NemesisSummary {
  /** The SPEC as given. */
  readonly spec: string;
  readonly seed: number;
  /** Requests that went through the nemesis (copies and retries included; a duplicate's copy not). */
  readonly requests: number;
  /** How often each fault was injected. */
  readonly injected: Readonly<Record<NemesisFault, number>>;
  /** Copies sent again after no answer, and calls that still had none once the retry policy was spent. */
  readonly retries: number;
  readonly unanswered: number;
}
