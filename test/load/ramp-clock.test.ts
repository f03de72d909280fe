/**
 * Load shapes on a scheduler test clock (issue 33): the open model's pacer admits each request at
 * the time the area under the staged rate says, and a late tick admits what fell due meanwhile with
 * each request's own due time, so latency under a ramp still counts from the intended send. No wall
 * time is waited for: the clock below runs its timers in order, jumping from one to the next.
 */
import { describe, expect, it } from 'vitest';
import type { EngineClock } from '../../src/load/engine/engine-options.ts';
import { connectionsAt, validateClosed } from '../../src/load/engine/executor-closed.ts';
import { openSchedule, validateOpen } from '../../src/load/engine/executor-open.ts';
import { Pacer } from '../../src/load/engine/pacer.ts';
import { arrivalsBy, arrivalTimes, formatStages, parseStages, splitStages, type Stage } from '../../src/load/stages.ts';
import { parseThreshold } from '../../src/load/gates/thresholds.ts';

/** A clock whose timers fire in due order when `runUntil` moves time; `lateBy` delays the timers set in a window, as a busy event loop would. */
class TestClock implements EngineClock {
  t = 0;
  private timers: Array<{ at: number; fn: () => void; live: boolean }> = [];
  lateBy: (setAt: number) => number = () => 0;
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): () => void {
    const timer = { at: this.t + Math.max(0, ms) + this.lateBy(this.t), fn, live: true };
    this.timers.push(timer);
    return () => void (timer.live = false);
  }
  runUntil(end: number): void {
    for (;;) {
      this.timers = this.timers.filter((x) => x.live).sort((a, b) => a.at - b.at);
      const next = this.timers.shift();
      if (!next || next.at > end) return;
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
  }
}

const T0 = 1_000_000;

/** Paces `stages` on a test clock; every admission as [due, admitted at] in ms from the start. */
function pace(stages: readonly Stage[], clock = new TestClock()): { admitted: Array<[number, number]>; ended: boolean } {
  clock.t = T0;
  const durationMs = stages.reduce((a, s) => a + s.durationMs, 0);
  const admitted: Array<[number, number]> = [];
  let ended = false;
  const pacer = new Pacer({
    clock, t0: T0, tEnd: T0 + durationMs,
    times: openSchedule({ kind: 'open', rate: Math.max(...stages.map((s) => s.target)), stages }, durationMs),
    admit: (due) => (admitted.push([due - T0, clock.now() - T0]), true),
    afterAdmit: () => {},
    shouldStop: () => false,
    full: () => false,
    end: () => void (ended = true),
  });
  pacer.tick();
  clock.runUntil(T0 + durationMs + 10_000);
  return { admitted, ended };
}

describe('--stages', () => {
  it('reads rates and connections, refuses a mix, and writes itself back', () => {
    const s = parseStages('30s:100/s, 2m:1000/s,1m:1000/s,30s:0/s');
    expect(s).toEqual({ unit: 'rate', stages: [{ durationMs: 30_000, target: 100 }, { durationMs: 120_000, target: 1000 }, { durationMs: 60_000, target: 1000 }, { durationMs: 30_000, target: 0 }] });
    expect(formatStages(s)).toBe('30s:100/s,2m:1000/s,1m:1000/s,30s:0/s');
    expect(parseStages('30s:10c,1m:10c').unit).toBe('connections');
    expect(() => parseStages('30s:10c,1m:100/s')).toThrow(/one list shapes one model/);
    expect(() => parseStages('30s:2.5c')).toThrow(/whole number/);
    expect(() => parseStages('30s-100/s')).toThrow(/bad stage "30s-100\/s"/);
    expect(() => parseStages('')).toThrow(/bad --stages/);
  });

  it('each model checks its own configuration', () => {
    const stages = [{ durationMs: 1000, target: 0 }];
    expect(() => validateOpen({ kind: 'open', rate: 1, stages }, 1000)).toThrow(/never sends/);
    expect(() => validateOpen({ kind: 'open', rate: 5, stages: [{ durationMs: 1000, target: 5 }] }, 2000)).toThrow(/the stages last 1000 ms, the run 2000 ms/);
    expect(() => validateClosed({ kind: 'closed', stages: [{ durationMs: 1000, target: 9 }] }, 8, 1000)).toThrow(/reach 9 connections, more than the 8 given/);
    expect(() => validateClosed({ kind: 'closed', stages: [{ durationMs: 1000, target: 8 }] }, 8, 1000)).not.toThrow();
  });

  it('schedules a ramp by the area under its rate: 0 to 100/s over 10 s is 500 requests, then a hold is the rate exactly', () => {
    const ramp: Stage[] = [{ durationMs: 10_000, target: 100 }, { durationMs: 5000, target: 100 }];
    const times = [...arrivalTimes(ramp, 1)];
    expect(times.filter((t) => t <= 10_000)).toHaveLength(500);
    expect(times).toHaveLength(1000);
    // Request i is due when the area reaches i: at sqrt(2·i·10/100) s within the ramp.
    expect(times[0]).toBeCloseTo(Math.sqrt((2 * 1 * 10) / 100) * 1000, 6);
    expect(times[199]).toBeCloseTo(Math.sqrt((2 * 200 * 10) / 100) * 1000, 6);
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThan(times[i - 1]!);
    // A ramp down mirrors it; a constant rate (no stages) starts with a request at once.
    expect([...arrivalTimes([{ durationMs: 10_000, target: 0 }], 1, 100)]).toHaveLength(500);
    expect([...openSchedule({ kind: 'open', rate: 4 }, 1000)]).toEqual([0, 250, 500, 750, 1000]);
  });

  it('admits each request at its due time on the test clock, the count per second following the ramp', () => {
    const stages: Stage[] = [{ durationMs: 4000, target: 200 }, { durationMs: 2000, target: 200 }, { durationMs: 2000, target: 0 }];
    const { admitted, ended } = pace(stages);
    expect(ended).toBe(true);
    for (const [due, at] of admitted) expect(at).toBe(due);
    for (let s = 0; s < 8; s++) {
      const inSecond = admitted.filter(([due]) => due >= s * 1000 && due < (s + 1) * 1000).length;
      const expected = arrivalsBy(stages, (s + 1) * 1000) - arrivalsBy(stages, s * 1000);
      expect(Math.abs(inSecond - expected), `second ${s}: ${inSecond} admitted, ${expected} due`).toBeLessThanOrEqual(1);
    }
    expect(admitted.length).toBe(Math.round(arrivalsBy(stages, 8000)) - 1);
  });

  it('under a late clock admits the same requests with their own due times: latency still counts from the intended send', () => {
    const stages: Stage[] = [{ durationMs: 3000, target: 300 }];
    const clock = new TestClock();
    // Every timer set during the second second fires 400 ms late (a stalled event loop).
    clock.lateBy = (setAt) => (setAt - T0 >= 1000 && setAt - T0 < 2000 ? 400 : 0);
    const late = pace(stages, clock).admitted;
    const onTime = pace(stages).admitted;
    expect(late.map(([due]) => due)).toEqual(onTime.map(([due]) => due));
    const delayed = late.filter(([due, at]) => at > due);
    expect(delayed.length).toBeGreaterThan(50);
    for (const [due, at] of late) expect(at).toBeGreaterThanOrEqual(due);
  });

  it('ramps connections in the closed model, and splits every stage among shards or workers in whole connections', () => {
    const m = { kind: 'closed' as const, stages: [{ durationMs: 10_000, target: 10 }, { durationMs: 10_000, target: 10 }, { durationMs: 5000, target: 0 }] };
    expect([0, 999, 1000, 5000, 9999, 10_000, 15_000, 20_000, 22_500, 25_000].map((ms) => connectionsAt(m, 10, ms))).toEqual([0, 0, 1, 5, 9, 10, 10, 10, 5, 0]);
    const parts = [0, 1, 2].map((i) => splitStages(m.stages, 3, i));
    expect(parts.map((p) => p[0]!.target)).toEqual([4, 3, 3]);
    expect(connectionsAt({ kind: 'closed' }, 7, 123)).toBe(7);
  });

  it("reads ':abort' and ':abort-after=' on a threshold, and nothing else after it", () => {
    expect(parseThreshold('p99<50ms:abort')).toMatchObject({ metric: 'p99', value: 50_000, abort: { afterMs: 0 } });
    expect(parseThreshold('errors<1%:abort-after=30s').abort).toEqual({ afterMs: 30_000 });
    expect(parseThreshold('p99<50ms').abort).toBeUndefined();
    expect(() => parseThreshold('p99<50ms:stop')).toThrow(/only ':abort' or ':abort-after=30s'/);
  });
});
