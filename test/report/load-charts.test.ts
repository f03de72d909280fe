/**
 * load.html's charts read the right way (issue 33): the capacity search's latency chart draws its
 * points ordered by offered rate whatever order the bisection visited them in, and a run's seconds
 * are charted as achieved against offered rate, with the offered rate beside the achieved one over time.
 */
import { describe, expect, it } from 'vitest';
import type { CapacityStep, LoadRunResult } from '../../src/load/result.ts';
import { emptyBucket } from '../../src/load/stats/timeline.ts';
import { capacityCharts } from '../../src/report/load/capacity.ts';
import { achievedChart, throughputChart } from '../../src/report/load/charts.ts';

const latency = (p99Us: number) => ({ count: 100, min: 1000, mean: p99Us / 2, p50: p99Us / 2, p90: p99Us * 0.8, p99: p99Us, p999: p99Us, max: p99Us });

function step(index: number, offered: number, p99Us: number): CapacityStep {
  return {
    index, phase: 'bisect', offered, sent: offered, rps: Math.min(offered, 900), goodput: Math.min(offered, 900), errorRate: 0,
    latency: latency(p99Us), measuredMs: 1000, objective: [], within: p99Us < 50_000, generatorLimited: false, generatorNote: 'idle',
  };
}

/** The points of each line (`<path d="M x y L x y …">`) of an SVG chart, in drawing order. */
function lines(svg: string): Array<Array<[number, number]>> {
  return [...svg.matchAll(/<path d="([^"]+)"/g)].map((m) => [...m[1]!.matchAll(/[ML]([\d.]+) ([\d.]+)/g)].map((p) => [Number(p[1]), Number(p[2])]));
}

const ascending = (xs: readonly number[]): boolean => xs.every((x, i) => i === 0 || x >= xs[i - 1]!);

describe('load.html charts', () => {
  it("draws the capacity search's latency against offered rate in order of the rate, not of the visits", () => {
    // Grow to 1600, then bisect back and forth around the knee at ~900/s.
    const visits = [step(0, 200, 5000), step(1, 400, 6000), step(2, 800, 9000), step(3, 1600, 400_000), step(4, 1200, 120_000), step(5, 1000, 70_000), step(6, 900, 30_000)];
    const r = { unit: 'ops', capacity: { objective: ['p99<50ms'], steps: visits, status: 'found', capacity: 900 } } as unknown as LoadRunResult;
    const [latencyChart, throughput] = capacityCharts(r).split('\n');
    const drawn = lines(latencyChart!);
    expect(drawn.length).toBeGreaterThanOrEqual(3);
    // p50, p90, p99: every point, each line left to right.
    for (const l of drawn.slice(0, 3)) {
      expect(l).toHaveLength(visits.length);
      expect(ascending(l.map((p) => p[0])), JSON.stringify(l)).toBe(true);
    }
    expect(throughput).toContain('Throughput against offered rate');
    for (const l of lines(throughput!).slice(0, 3)) expect(ascending(l.map((p) => p[0]))).toBe(true);
  });

  it('charts achieved against offered rate per second, ordered by the offered rate, and the offered rate over time', () => {
    // A ramp up to 100/s and down again; the server keeps up to 80/s.
    const offered = [20, 60, 100, 100, 60, 20];
    const timeline = offered.map((o) => ({ ...emptyBucket(), offered: o, completed: Math.min(o, 80), ok: Math.min(o, 80) }));
    const r = { unit: 'ops', timeline, totals: { wallMs: 6000 } } as unknown as LoadRunResult;
    const svg = achievedChart(r);
    expect(svg).toContain('Achieved against offered rate');
    const [achieved, diagonal] = lines(svg);
    expect(achieved).toHaveLength(offered.length);
    expect(ascending(achieved!.map((p) => p[0]))).toBe(true);
    expect(diagonal).toHaveLength(2);
    expect(throughputChart(r)).toContain('offered/s');
    // A timeline without offered counts (an older run): no such chart, no offered line.
    const old = { ...r, timeline: timeline.map((b) => ({ ...b, offered: 0 })) } as LoadRunResult;
    expect(achievedChart(old)).toBe('');
    expect(throughputChart(old)).not.toContain('offered/s');
  });
});
