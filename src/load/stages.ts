/**
 * Load shapes (`--stages '30s:100/s,2m:1000/s,30s:0/s'`), as k6's ramping executors read them: each
 * stage moves the rate (open model) or the connection count (closed model) linearly from where the
 * previous stage ended to its own target, over its duration; the first starts from 0.
 *
 * The open model's schedule is exact rather than stepped: request i is due when the area under the
 * rate curve reaches i (k6's ramping-arrival-rate solves the same quadratic), so a ramp from 0 to
 * 100/s over 10 s sends 500 requests, the first ones far apart and the last 10 ms apart.
 */
import { parseDuration } from './units.ts';

export interface Stage {
  readonly durationMs: number;
  /** Requests per second (open model) or connections (closed model) at the stage's end. */
  readonly target: number;
}

export type StageUnit = 'rate' | 'connections';

export interface Stages {
  readonly unit: StageUnit;
  readonly stages: readonly Stage[];
}

const STAGE = /^\s*([^:]+):\s*([0-9]+(?:\.[0-9]+)?)\s*(\/s|c)\s*$/;

/** Parses `30s:100/s,…` (a rate per stage) or `30s:10c,…` (connections per stage); one unit per list. */
export function parseStages(text: string): Stages {
  const parts = text.split(',').filter((p) => p.trim() !== '');
  if (parts.length === 0) throw new RangeError(`bad --stages "${text}": expected e.g. '30s:100/s,2m:1000/s,30s:0/s' or '30s:10c,1m:10c'`);
  const read = parts.map((p) => {
    const m = STAGE.exec(p);
    if (!m) throw new RangeError(`bad stage "${p.trim()}" in --stages: expected DURATION:RATE/s (e.g. 30s:100/s) or DURATION:Nc (e.g. 30s:10c)`);
    const unit: StageUnit = m[3] === 'c' ? 'connections' : 'rate';
    const target = Number(m[2]);
    if (unit === 'connections' && !Number.isInteger(target)) throw new RangeError(`bad stage "${p.trim()}": connections are a whole number`);
    return { unit, stage: { durationMs: parseDuration(m[1].trim()), target } };
  });
  const unit = read[0].unit;
  if (read.some((r) => r.unit !== unit)) throw new RangeError(`bad --stages "${text}": mix of rates (/s) and connections (c); one list shapes one model`);
  return { unit, stages: read.map((r) => r.stage) };
}

export function stagesDurationMs(stages: readonly Stage[]): number {
  return stages.reduce((a, s) => a + s.durationMs, 0);
}

export function peakTarget(stages: readonly Stage[]): number {
  return Math.max(0, ...stages.map((s) => s.target));
}

/** The shaped value at `ms` into the run: linear within a stage from the previous stage's target (0 before the first). */
export function targetAt(stages: readonly Stage[], ms: number, from = 0): number {
  let start = 0;
  let prev = from;
  for (const s of stages) {
    if (ms < start + s.durationMs) return prev + ((s.target - prev) * (ms - start)) / s.durationMs;
    start += s.durationMs;
    prev = s.target;
  }
  return prev;
}

/** Requests due by `ms` into the run: the area under the rate curve (rates per second, time in ms). */
export function arrivalsBy(stages: readonly Stage[], ms: number, from = 0): number {
  let start = 0;
  let prev = from;
  let area = 0;
  for (const s of stages) {
    const t = Math.min(s.durationMs, Math.max(0, ms - start));
    area += (t / 1000) * (prev + (prev + ((s.target - prev) * t) / s.durationMs)) / 2;
    if (ms <= start + s.durationMs) return area;
    start += s.durationMs;
    prev = s.target;
  }
  return area;
}

/**
 * The due times (ms from the start) of the requests, in order: the time at which the area under the
 * rate curve reaches `first`, `first + 1`, … `first` 0 puts one request at the very start (a constant
 * rate, as wrk2 does); 1 is k6's ramp, whose first request waits for a whole request's worth of area.
 */
export function* arrivalTimes(stages: readonly Stage[], first: number, from = 0): Generator<number, void, undefined> {
  let stageStart = 0;
  let done = 0;
  let i = first;
  let prev = from;
  for (const s of stages) {
    const dur = s.durationMs / 1000;
    const to = s.target;
    const end = done + (dur * (prev + to)) / 2;
    for (; i <= end + 1e-9 && (prev > 0 || to > 0); i++) yield stageStart + 1000 * offsetInStage(prev, to, dur, i - done);
    done = end;
    prev = to;
    stageStart += s.durationMs;
  }
}

/** Seconds into a stage going from rate `a` to `b` over `dur` s at which its area reaches `n`. */
function offsetInStage(a: number, b: number, dur: number, n: number): number {
  if (a === b) return n / a;
  // a·x + (b−a)·x²/(2·dur) = n, the root inside the stage.
  const disc = a * a + (2 * (b - a) * n) / dur;
  const x = ((Math.sqrt(Math.max(0, disc)) - a) * dur) / (b - a);
  return Math.min(dur, Math.max(0, x));
}

/** `stages` with every target scaled by `f` (a worker's or a shard's share of an open model's rate). */
export function scaleStages(stages: readonly Stage[], f: number): Stage[] {
  return stages.map((s) => ({ durationMs: s.durationMs, target: s.target * f }));
}

/** `stages` with every target replaced by part `i` of `parts` of it (whole connections, the first parts taking the remainder). */
export function splitStages(stages: readonly Stage[], parts: number, i: number): Stage[] {
  return stages.map((s) => ({ durationMs: s.durationMs, target: Math.floor(s.target / parts) + (i < s.target % parts ? 1 : 0) }));
}

/** The stages as written on the command line (`30s:100/s,…`), for reports and manifests. */
export function formatStages(s: Stages): string {
  const dur = (ms: number): string => (ms % 60_000 === 0 ? `${ms / 60_000}m` : ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`);
  return s.stages.map((x) => `${dur(x.durationMs)}:${x.target}${s.unit === 'rate' ? '/s' : 'c'}`).join(',');
}
