/**
 * What a probe found about one assumption: the reading observed (with every reading the evidence
 * fits), "not observable" (the profile lacks what it takes, or another reading hides it), or
 * "unknown" (the target answered in none of the known readings, or not at all). Evidence is one
 * line per request, secrets already masked.
 */
import { ASSUMPTIONS, assumptionOf, isReading, readingsOf, type AssumptionName, type ReadingOf } from '../spec/index.ts';
import type { Answer } from './env.ts';

interface Base<N extends AssumptionName> {
  readonly assumption: N;
  readonly evidence: readonly string[];
}

export type ProbeResultOf<N extends AssumptionName> =
  | (Base<N> & {
      readonly status: 'found';
      readonly reading: ReadingOf<N>;
      /** Every reading the evidence fits, `reading` among them (a 409 fits `any-4xx` and `409`). */
      readonly consistent: readonly ReadingOf<N>[];
      /** What was seen, in a few words ("answered 412"). */
      readonly detail?: string;
    })
  | (Base<N> & { readonly status: 'not-observable'; readonly why: string })
  | (Base<N> & { readonly status: 'unknown'; readonly why: string });

/** Any assumption's result: each probe's own `ProbeResultOf<N>` is one, so none needs a cast to join a table. */
export type ProbeResult = ProbeResultOf<AssumptionName>;

/**
 * The assumptions discovery reports on: every one a server decides with more than one reading.
 * Single-reading entries have nothing to tell apart; harness entries are the run's own choice.
 */
export const DISCOVERABLE: readonly AssumptionName[] = Object.freeze(ASSUMPTIONS.filter((a) => a.decidedBy === 'server' && a.choices.length > 1).map((a) => a.name));

export function notObservable<N extends AssumptionName>(assumption: N, why: string, evidence: readonly string[] = []): ProbeResultOf<N> {
  return { assumption, status: 'not-observable', why, evidence };
}

export function unknown<N extends AssumptionName>(assumption: N, why: string, evidence: readonly string[] = []): ProbeResultOf<N> {
  return { assumption, status: 'unknown', why, evidence };
}

/**
 * The result for the readings the evidence fits. A reading is identified only when no other could
 * have given the same answers: it alone fits, or it is the default and every other fit merely
 * narrows it (`conflict-status=409` within `any-4xx`: taking the narrower one would make the run
 * stricter on no evidence beyond what was seen). No fit, or several that differ, is `unknown`.
 */
export function decide<N extends AssumptionName>(assumption: N, consistent: readonly ReadingOf<N>[], evidence: readonly string[], detail?: string): ProbeResultOf<N> {
  const a = assumptionOf(assumption);
  const fits = a.choices.filter((c) => consistent.some((r) => r === c.value));
  if (fits.length === 0) return unknown(assumption, `none of the known readings (${a.choices.map((c) => c.value).join(', ')}) fits what the target answered`, evidence);
  // Identified, not guessed: one reading alone fits, or the default with alternatives that only narrow it.
  const onlyNarrowing = fits.some((c) => c.value === a.default) && fits.every((c) => c.value === a.default || c.narrows);
  const fitting = fits.map((c) => c.value).filter((v): v is ReadingOf<N> => isReading(assumption, v));
  const chosen = fits.length === 1 ? fits[0].value : onlyNarrowing ? a.default : undefined;
  const reading = chosen !== undefined && isReading(assumption, chosen) ? chosen : undefined;
  if (reading === undefined) return unknown(assumption, `the answers fit several readings (${fits.map((c) => c.value).join(', ')}), and nothing seen tells them apart`, evidence);
  return { assumption, status: 'found', reading, consistent: fitting, evidence, ...(detail ? { detail } : {}) };
}

/** Every reading of `name`, registry order, typed. */
export function choicesOf<N extends AssumptionName>(name: N): ReadingOf<N>[] {
  return readingsOf(name);
}

/** `decide` for a single reading. */
export function found<N extends AssumptionName>(assumption: N, reading: ReadingOf<N>, evidence: readonly string[], detail?: string): ProbeResultOf<N> {
  return decide(assumption, [reading], evidence, detail);
}

/** The reading an accepted or a refused request stands for, when the request differs from a plain, accepted one in one value. */
export function verdict<N extends AssumptionName>(evidence: readonly string[], name: N, a: Answer, ifAccepted: ReadingOf<N>, ifRefused: ReadingOf<N>): ProbeResultOf<N> {
  if (a === 'inconclusive') return unknown(name, 'answered with a 5xx, no answer or a broken envelope', evidence);
  return decide(name, [a === 'accepted' ? ifAccepted : ifRefused], evidence);
}
