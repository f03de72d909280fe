/** The engine's sender: each request settles once, with a capped body, within its deadline, never recursing. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEngine } from '../../src/load/engine/engine.ts';
import type { LoadRequest, RequestSource } from '../../src/load/scenario.ts';
import { AbandonedError, Sender } from '../../src/load/http1/sender.ts';
import { dripBody, endlessBody, type Local } from '../cli/misbehaving-servers.ts';
import { besideTimer } from '../timing.ts';

const req = (headers: Record<string, string> = {}): LoadRequest => ({ method: 'POST', path: '/x', headers, body: '{}', kind: 'k' });

let endless: Local;
let drip: Local;
beforeAll(async () => {
  endless = await endlessBody();
  drip = await dripBody(10);
});
afterAll(async () => {
  await endless.close();
  await drip.close();
});

describe('Sender', () => {
  it('abandons a body past its cap, and one that drips past its deadline', async () => {
    const capped = new Sender(endless.url, 1, 5000, 4096);
    const slow = new Sender(drip.url, 1, 200);
    try {
      const e1 = await capped.request(req()).then(() => undefined, (e: unknown) => e);
      expect(e1).toBeInstanceOf(AbandonedError);
      expect((e1 as AbandonedError).abandoned).toBe('body-over-cap');
      expect((e1 as AbandonedError).reason).toBe('response body over 4096 bytes (abandoned)');
      const e2 = await slow.request(req()).then(() => undefined, (e: unknown) => e);
      expect((e2 as AbandonedError).abandoned).toBe('timeout');
      expect(capped.inFlight.size + slow.inFlight.size).toBe(0);
    } finally {
      await capped.close();
      await slow.close();
    }
  });

  it('settles a request the sender refuses inside send itself (deferred, so send → done → send cannot recurse), and the run still ends', async () => {
    const bad = req({ 'x-bad': 'a\r\nb' });
    const seen: string[] = [];
    const source: RequestSource = {
      next: () => bad,
      complete: (_r, res) => {
        seen.push(res instanceof Error ? res.message : 'answered');
        return { ok: false, units: 0, reason: 'refused', error: true };
      },
    };
    const durationMs = 300;
    const { value: r, tookMs, timerMs } = await besideTimer(durationMs, () => runEngine({ baseUrl: endless.url, source, model: { kind: 'closed' }, connections: 2, durationMs, maxRequests: 1_000_000, timeoutMs: 1000 }));
    // Every request sent was settled exactly once, and the run ended: at its duration, give or take what a
    // loaded machine adds, measured by a timer of that duration set beside it (a spin would never end).
    expect(r.completed).toBe(r.sent);
    expect(seen).toHaveLength(r.sent);
    expect(seen[0]).toMatch(/invalid x-bad header/);
    expect(tookMs).toBeLessThan(10 * timerMs);
  });
});
