/**
 * The additive part of a load result: counters, outcome reasons and per-kind tallies. Worker
 * threads running side by side and sweep points running one after another merge these the same
 * way (by addition); only their timelines and wall times combine differently.
 */
import { encodeHistogram, mergeEncoded, newHistogram, summarize, type LatencySummary } from './histogram.ts';
import { tableOf } from '../../spec/index.ts';

export interface KindTally {
  sent: number;
  ok: number;
  units: number;
}

export interface Tally {
  readonly sent: number;
  readonly completed: number;
  readonly ok: number;
  readonly notOk: number;
  readonly errors: number;
  /** Open model: due requests dropped because the wait queue was full. */
  readonly dropped: number;
  /** Open model: due requests still waiting when the run ended. */
  readonly unsent: number;
  readonly units: number;
  readonly bytesSent: number;
  readonly reasons: Readonly<Record<string, number>>;
  readonly kinds: Readonly<Record<string, KindTally>>;
}

const COUNTERS = ['sent', 'completed', 'ok', 'notOk', 'errors', 'dropped', 'unsent', 'units', 'bytesSent'] as const;

/** Adds string-keyed counts. */
export function addCounts(all: ReadonlyArray<Readonly<Record<string, number>>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of all) for (const [k, v] of Object.entries(m)) out[k] = (out[k] ?? 0) + v;
  return out;
}

export function addTallies(all: readonly Tally[]): { -readonly [K in keyof Tally]: Tally[K] extends number ? number : K extends 'kinds' ? Record<string, KindTally> : Record<string, number> } {
  const sum = tableOf(COUNTERS, (c) => all.reduce((a, t) => a + t[c], 0));
  const kinds: Record<string, KindTally> = {};
  for (const t of all)
    for (const [k, v] of Object.entries(t.kinds)) {
      const o = (kinds[k] ??= { sent: 0, ok: 0, units: 0 });
      o.sent += v.sent;
      o.ok += v.ok;
      o.units += v.units;
    }
  return { ...sum, reasons: addCounts(all.map((t) => t.reasons)), kinds };
}

/** Merges encoded HdrHistograms into one, with its summary. */
export function mergeHistograms(encoded: readonly string[]): { histogram: string; latency: LatencySummary } {
  const h = newHistogram();
  try {
    for (const e of encoded) mergeEncoded(h, e);
    return { histogram: encodeHistogram(h), latency: summarize(h) };
  } finally {
    h.destroy();
  }
}

/** mergeHistograms for the failed-only histograms, under their own names. */
export function errorHistograms(encoded: readonly string[]): { errorHistogram: string; errorLatency: LatencySummary } {
  const m = mergeHistograms(encoded);
  return { errorHistogram: m.histogram, errorLatency: m.latency };
}
