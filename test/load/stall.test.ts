/**
 * Coordinated omission: against a reference that stalls every request arriving in the first D ms of
 * each P ms window until the window ends, an open-model run charges each stalled request its wait
 * from its intended send time. A fraction D/P of arrivals waits uniformly in (0, D], so
 * P(latency > x) = (D/P)(1 - x/D) and the q-quantile of the tail is D - (1 - q)·P:
 * p99 = D - 0.01·P, p99.9 = D - 0.001·P (90 ms and 99 ms for P = 1000, D = 100). A closed model
 * sends nothing while its connections are held, so it sees only one stalled request per connection
 * per window and its p99 stays far below.
 */
import { describe, expect, it } from 'vitest';
import { STALL_MS, STALL_PERIOD_MS } from '../../src/reference/index.ts';
import { loadEmbedded } from './embedded.ts';

const expectedUs = (tail: number): number => (STALL_MS - tail * STALL_PERIOD_MS) * 1000;
// Cheap requests (unsigned browser commits, no envelope, no blobs) keep the machine's own noise
// small against D; 250 req/s for 8 s puts 200 stalled samples in each percentile's neighbourhood.
const params = { member: 'browser', envelope: 0, blobs: 0, ops: 1 };

describe('open model corrects coordinated omission', () => {
  it('measures p99 and p99.9 of a periodic stall within 10% of the analytic values; the closed model does not', async () => {
    const p99 = expectedUs(0.01), p999 = expectedUs(0.001);
    const error = (r: { latency: { p99: number; p999: number } }): number => Math.max(Math.abs(r.latency.p99 - p99) / p99, Math.abs(r.latency.p999 - p999) / p999);
    // On a shared machine a descheduled process can add tens of ms to one window, which moves
    // p99.9 (a handful of samples); such a run is repeated, at most three times in all. An engine
    // that does not correct for coordinated omission fails every attempt by far.
    let best;
    for (let attempt = 0; attempt < 3; attempt++) {
      const { result } = await loadEmbedded({ scenario: 'commit-throughput', params, faults: ['stall-periodic'], rate: 250, durationMs: 8000, connections: 64, workers: 1, seed: 11 + attempt });
      if (!best || error(result) < error(best)) best = result;
      if (error(best) <= 0.1) break;
    }
    const r = best!;
    expect(r.totals.ok).toBeGreaterThan(1800);
    expect(r.totals.dropped).toBe(0);
    expect(Math.abs(r.latency.p99 - p99) / p99, `open p99 ${r.latency.p99} µs, expected ${p99}`).toBeLessThanOrEqual(0.1);
    expect(Math.abs(r.latency.p999 - p999) / p999, `open p99.9 ${r.latency.p999} µs, expected ${p999}`).toBeLessThanOrEqual(0.1);

    const closed = await loadEmbedded({ scenario: 'commit-throughput', params, faults: ['stall-periodic'], connections: 1, workers: 0, durationMs: 3000, seed: 12 });
    expect(closed.result.totals.ok).toBeGreaterThan(100);
    // One stalled request per window among hundreds: the stall vanishes from the closed p99.
    expect(closed.result.latency.p99, `closed p99 ${closed.result.latency.p99} µs`).toBeLessThan(p99 * 0.9);
  }, 60_000);
});
