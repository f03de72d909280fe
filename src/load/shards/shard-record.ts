/**
 * `shard.json`: what a shard measured besides its histograms (which go to `shard.hlog`), in a form
 * `load merge` can check before it trusts it: counters, reasons, timeline, scenario, rate, the shard's
 * index and count, the start it was asked for and the one it took, and the thresholds it was given.
 */
import { z } from 'zod';
import type { LoadRunResult } from '../result.ts';
import { errorMessage } from '../../spec/index.ts';

export const SHARD_FORMAT = 'pouchproof-load-shard';
export const SHARD_VERSION = 1;
export const SHARD_JSON = 'shard.json';
export const SHARD_HLOG = 'shard.hlog';

/** The result of a shard, without what the histogram log holds. */
export type ShardResult = Omit<LoadRunResult, 'histogram' | 'latency' | 'errorHistogram' | 'errorLatency' | 'spectrum' | 'thresholds' | 'shard' | 'startMs' | 'phases'> & {
  readonly shard: NonNullable<LoadRunResult['shard']>;
  readonly startMs: number;
};

export interface ShardRecord {
  readonly format: typeof SHARD_FORMAT;
  readonly version: typeof SHARD_VERSION;
  /** The thresholds the shard was given; a merge judges them on the whole when it is given none. */
  readonly thresholds: readonly string[];
  readonly result: ShardResult;
}

const count = z.number().int().nonnegative();
// `offered` is newer than the shard format: a shard written before it reads as having offered nothing.
const bucket = z.object({ completed: count, ok: count, units: z.number().nonnegative(), errors: count, offered: count.default(0) });

const resultSchema = z.looseObject({
  runId: z.string(),
  scenario: z.string(),
  description: z.string(),
  unit: z.enum(['ops', 'rows', 'units']),
  target: z.object({ url: z.string(), embedded: z.boolean(), faults: z.array(z.string()).optional() }),
  model: z.enum(['open', 'closed']),
  rate: z.number().positive().optional(),
  connections: z.number().int().positive(),
  workers: count,
  durationMs: z.number().positive(),
  maxRequests: z.number().positive(),
  seed: z.number(),
  params: z.record(z.string(), z.union([z.number(), z.string()])),
  startedAt: z.string(),
  startMs: z.number().positive(),
  shard: z.object({ index: count, count: z.number().int().positive(), requestedStartMs: z.number().optional() }),
  totals: z.object({
    sent: count, completed: count, ok: count, notOk: count, errors: count, dropped: count, unsent: count,
    units: z.number().nonnegative(), bytesSent: z.number().nonnegative(), wallMs: z.number().nonnegative(),
  }),
  rates: z.object({ rps: z.number(), okPerSecond: z.number(), goodput: z.number() }),
  errorRate: z.number(),
  timeline: z.array(bucket),
  reasons: z.record(z.string(), count),
  kinds: z.record(z.string(), z.object({ sent: count, ok: count, units: z.number().nonnegative() })),
  stats: z.record(z.string(), z.number()),
  checks: z.array(z.looseObject({ name: z.string(), passed: z.boolean(), message: z.string() })),
  generator: z.looseObject({ busy: z.array(z.number()), loopUtilization: z.array(z.number()), prepareMs: z.array(z.number()), limited: z.boolean(), note: z.string() }),
  interrupted: z.boolean(),
});

const recordSchema = z.object({
  format: z.literal(SHARD_FORMAT),
  version: z.literal(SHARD_VERSION),
  thresholds: z.array(z.string()),
  result: resultSchema,
});

export class ShardRecordError extends Error {}

export function toShardRecord(r: LoadRunResult, thresholds: readonly string[]): ShardRecord {
  if (!r.shard || r.startMs === undefined) throw new RangeError('not a shard result');
  const { histogram: _h, latency: _l, errorHistogram: _eh, errorLatency: _el, spectrum: _s, thresholds: _t, phases: _p, shard, startMs, ...rest } = r;
  return { format: SHARD_FORMAT, version: SHARD_VERSION, thresholds: [...thresholds], result: { ...rest, shard, startMs } };
}

/** Parses and checks a `shard.json`; the message names the file and the first bad field. */
export function parseShardRecord(text: string, what: string): ShardRecord {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ShardRecordError(`${what} is not JSON (${errorMessage(e)})`);
  }
  const p = recordSchema.safeParse(raw);
  if (!p.success) {
    const issue = p.error.issues[0];
    throw new ShardRecordError(`${what} is not a pouchproof shard record: ${issue.path.join('.') || '(top)'}: ${issue.message}`);
  }
  if (p.data.result.shard.index >= p.data.result.shard.count) throw new ShardRecordError(`${what}: shard index ${p.data.result.shard.index} is not below its count ${p.data.result.shard.count}`);
  // z.infer of the record schema widens the readonly literals ShardRecord names
  return p.data as ShardRecord;
}
