/**
 * The phases of a request, as k6 splits `http_req_duration`, plus the wait before the write:
 * - blocked: from the intended send time to the moment a connection took the request (the
 *   open model's queue and a busy generator show here, not in the server's figures);
 * - connect, tls: opening the connection (TCP, or the proxy tunnel), and its TLS handshake; recorded
 *   only for the requests that opened one, so their counts are the connections opened;
 * - send: writing the request until the kernel took it; wait: from then to the first response
 *   byte (time to first byte: the server's own time plus one round trip); receive: the rest.
 * Recorded for the requests that got a response; one HdrHistogram (µs) per phase, merged exactly
 * like the total (HdrHistogram buckets add).
 */
import { encodeHistogram, mergeEncoded, newHistogram, recordUs, spectrum, summarize, type LatencySummary } from './histogram.ts';
import { tableOf } from '../../spec/index.ts';

export const PHASES = ['blocked', 'connect', 'tls', 'send', 'wait', 'receive'] as const;
export type Phase = (typeof PHASES)[number];

/** The histogram-log tag of a phase (shard.hlog). */
export const phaseTag = (p: Phase): string => `phase-${p}`;

/** One phase's figures: its summary, spectrum and encoded histogram (for re-analysis and merges). */
export interface PhaseFigures {
  readonly latency: LatencySummary;
  readonly spectrum: ReadonlyArray<{ percentile: number; us: number }>;
  readonly histogram: string;
}

export type PhaseHistograms = Readonly<Record<Phase, string>>;
export type PhaseResult = Readonly<Record<Phase, PhaseFigures>>;

/** Epoch-ms instants of one request, as the sender saw them (0: did not happen). */
export interface PhaseTimes {
  readonly intended: number;
  readonly assigned: number;
  readonly opened: number;
  readonly connected: number;
  readonly secured: number;
  readonly written: number;
  readonly firstByte: number;
  readonly ended: number;
}

const us = (a: number, b: number): number => Math.max(0, (b - a) * 1000);

/**
 * Each phase's duration (µs) in PHASES order into `out`, -1 for a phase the request did not go
 * through (connect and TLS on a reused connection). One array reused by the caller: no allocation per request.
 */
export function phaseDurations(t: PhaseTimes, out: Float64Array): void {
  out[0] = us(t.intended, t.assigned);
  out[1] = -1;
  out[2] = -1;
  let ready = t.assigned;
  if (t.opened > 0 && t.connected > 0) {
    out[1] = us(t.opened, t.connected);
    ready = t.connected;
    if (t.secured > 0) {
      out[2] = us(t.connected, t.secured);
      ready = t.secured;
    }
  }
  // A write flushed before the connection was ready (it cannot be) or never confirmed counts as instant.
  const written = Math.max(t.written, ready);
  const first = t.firstByte > 0 ? t.firstByte : t.ended;
  out[3] = us(ready, written);
  out[4] = us(written, first);
  out[5] = us(first, t.ended);
}

export class PhaseRecorder {
  private readonly hists = PHASES.map(() => newHistogram());
  private readonly durations = new Float64Array(PHASES.length);

  record(t: PhaseTimes): void {
    phaseDurations(t, this.durations);
    for (let i = 0; i < PHASES.length; i++) if (this.durations[i] >= 0) recordUs(this.hists[i], this.durations[i]);
  }

  /** The encoded histograms; the recorder is spent afterwards. */
  finish(): PhaseHistograms {
    const out = tableOf(PHASES, (_, i) => encodeHistogram(this.hists[i]));
    for (const h of this.hists) h.destroy();
    return out;
  }
}

/** Phase histograms of several engines, shards or sweep points, added exactly. */
export function mergePhases(all: ReadonlyArray<Partial<PhaseHistograms> | undefined>): PhaseHistograms {
  return tableOf(PHASES, (p) => mergeAll(all.map((x) => x?.[p]).filter((x): x is string => x !== undefined)).histogram);
}

function mergeAll(encoded: readonly string[]): PhaseFigures {
  const h = newHistogram();
  try {
    for (const e of encoded) mergeEncoded(h, e);
    return { latency: summarize(h), spectrum: spectrum(h), histogram: encodeHistogram(h) };
  } finally {
    h.destroy();
  }
}

/** The figures reports show, from merged histograms. */
export function phaseFigures(h: PhaseHistograms): PhaseResult {
  return tableOf(PHASES, (p) => mergeAll([h[p]]));
}
