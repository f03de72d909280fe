/** The open model accounts for every request due in the window, even when its timer fires late. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEngine } from '../../src/load/engine.ts';
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
