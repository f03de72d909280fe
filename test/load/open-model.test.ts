/** The open model accounts for every request due in the window, even when its timer fires late. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEngine } from '../../src/load/engine/engine.ts';
import type { RequestSource } from '../../src/load/scenario.ts';

let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('{"ok":true}'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));

const source: RequestSource = {
  next: () => ({ method: 'POST', path: '/', headers: {}, body: '{}', kind: 'k' }),
  complete: (_r, res) => ({ ok: !(res instanceof Error) && res.status === 200, units: 1 }),
};

describe('open model', () => {
  it('counts the requests that fell due while the event loop was blocked past the end of the window', async () => {
    const rate = 1000;
    const durationMs = 400;
    // From 150 ms on, the thread is blocked until well after the window closed: the engine's next
    // tick comes late, and the ~250 requests due meanwhile must still be sent or counted.
    const block = setTimeout(() => {
      const until = Date.now() + 500;
      while (Date.now() < until);
    }, 150);
    const r = await runEngine({ baseUrl: url, source, model: { kind: 'open', rate }, connections: 4, durationMs, maxRequests: 1_000_000, timeoutMs: 5000 });
    clearTimeout(block);
    const due = (rate * durationMs) / 1000;
    const accounted = r.sent + r.unsent + r.dropped;
    expect(accounted).toBeGreaterThanOrEqual(due - 2);
    expect(accounted).toBeLessThanOrEqual(due + 1);
    // The late ones that were sent carry their lateness: the worst latency covers the block.
    expect(r.latency.max).toBeGreaterThan(200_000);
  });
});

describe('prefetch', () => {
  const counting = (prefetch?: number) => {
    let built = 0;
    let completed = 0;
    const s: RequestSource = {
      ...(prefetch === undefined ? {} : { prefetch }),
      next: () => (built++, { method: 'POST', path: '/', headers: {}, body: `{"n":${built}}`, kind: 'k' }),
      complete: (_r, res) => (completed++, { ok: !(res instanceof Error) && res.status === 200, units: 1 }),
    };
    return { s, built: () => built, completed: () => completed };
  };

  it('takes requests ahead of their send only as far as the source allows, in both models', async () => {
    for (const model of [{ kind: 'closed' } as const, { kind: 'open', rate: 500 } as const]) {
      const plain = counting();
      const r0 = await runEngine({ baseUrl: url, source: plain.s, model, connections: 4, durationMs: 300, maxRequests: 1_000_000, timeoutMs: 5000 });
      // Without prefetch every request taken is sent (the open model may hold one it could not send).
      expect(plain.built() - r0.sent).toBeLessThanOrEqual(1);
      const ahead = counting(8);
      const r1 = await runEngine({ baseUrl: url, source: ahead.s, model, connections: 4, durationMs: 300, maxRequests: 1_000_000, timeoutMs: 5000 });
      expect(r1.sent).toBeGreaterThan(20);
      expect(r1.completed).toBe(r1.sent);
      expect(ahead.completed()).toBe(r1.sent);
      // Built ahead at most 8 beyond what was sent, and some were (the refill runs in idle moments).
      expect(ahead.built() - r1.sent).toBeGreaterThan(0);
      expect(ahead.built() - r1.sent).toBeLessThanOrEqual(8 + 1);
    }
  });
});
