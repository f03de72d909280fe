/**
 * What the run's request counter keeps for a crash finding: the last answered exchange and the
 * first of the silent streak under way, never a streak that has ended (one such request, the
 * 64 MiB body of `robustness.oversized-body`, stayed alive for the rest of a run).
 */
import { describe, expect, it } from 'vitest';
import { RequestCounter } from '../../src/check/run/context.ts';
import type { Exchange } from '../../src/target/client.ts';

let nextId = 1;
function exchange(answered: boolean, bodyBytes = 2): Exchange {
  const base = {
    id: nextId++,
    endpoint: 'reportUsage' as const,
    request: { method: 'POST', url: 'http://127.0.0.1:1/usage', headers: {}, body: new Uint8Array(bodyBytes) },
    timings: { startedAt: Date.now(), totalMs: 1 },
  };
  return answered
    ? { ...base, response: { status: 200, headers: {}, body: '{"ok":true}', truncated: false }, verdict: 'accepted', reason: '200' }
    : { ...base, verdict: 'transport-error', reason: 'the connection closed before the answer', failure: 'timeout' };
}

describe('the request counter holds no ended streak', () => {
  it('keeps the first request of a silent streak while it lasts, and lets it go once the target answers', async () => {
    const counter = new RequestCounter();
    const answered = exchange(true);
    await counter.record(answered);
    expect(counter.held).toEqual([answered]);

    const big = exchange(false, 1 << 20);
    await counter.record(big);
    await counter.record(exchange(false));
    // The streak is under way: its first request is what a crash finding would name.
    expect(counter.held).toEqual([answered, big]);

    const next = exchange(true);
    await counter.record(next);
    expect(counter.held).toEqual([next]);
    expect(counter.held).not.toContain(big);
  });

  it('a new streak holds its own first request, not an earlier one', async () => {
    const counter = new RequestCounter();
    const first = exchange(false);
    await counter.record(first);
    await counter.record(exchange(true));
    const second = exchange(false);
    await counter.record(second);
    expect(counter.held.filter((e) => e.verdict === 'transport-error')).toEqual([second]);
  });
});
