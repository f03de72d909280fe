/**
 * A finding's recorded exchanges keep an excerpt of each body, never the body: a slice of a long
 * string keeps its whole parent alive in V8, which is how a run against an endless body once held
 * 4 MiB per finding (4.2 GB in all). Checked in a child process that can force garbage collection.
 */
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MAX_RECORDED_BODY_CHARS, recordExchange } from '../../src/check/run/exchange-record.ts';
import type { Exchange } from '../../src/target/client.ts';
import { ExchangeSchema } from '../../src/report/report-json.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

const exchange = (body: string): Exchange => ({
  id: 1,
  endpoint: 'reportUsage',
  request: { method: 'PUT', url: 'http://t/v1/usage/sources/x', headers: {}, body: new Uint8Array(0) },
  response: { status: 200, headers: { 'content-type': 'application/json' }, body, truncated: false },
  verdict: 'protocol-error',
  reason: 'not an envelope',
  timings: { startedAt: 0, totalMs: 1 },
});

describe('recorded exchanges', () => {
  it('say when the request was sent again (a stale connection) or waited out a throttle, and valid as report.json says', () => {
    const plain = recordExchange(exchange('{}'), []);
    expect(plain.resent).toBeUndefined();
    expect(plain.throttled).toBeUndefined();
    const r = recordExchange({ ...exchange('{}'), resent: 'the first copy met a closed connection', throttled: { retries: 2, waitedMs: 2000.4, cutShort: true } }, []);
    expect(r.resent).toBe('the first copy met a closed connection');
    expect(r.throttled).toEqual({ retries: 2, waitedMs: 2000, cutShort: true });
    const given = recordExchange({ ...exchange('{}'), throttled: { retries: 4, waitedMs: 4000, givenUp: 'alone' } }, []);
    expect(given.throttled).toEqual({ retries: 4, waitedMs: 4000, givenUp: 'alone' });
    expect(ExchangeSchema.safeParse(given).success).toBe(true);
    expect(ExchangeSchema.safeParse(r).success).toBe(true);
  });
});

describe('recorded bodies', () => {
  it('keep an excerpt, with a secret that straddles the cut masked whole', () => {
    const secret = 'tok-7c1d9e4b';
    const body = 'x'.repeat(MAX_RECORDED_BODY_CHARS - 3) + secret + 'y'.repeat(100_000);
    const r = recordExchange(exchange(body), [secret]).response!.body;
    expect(r.text).toBe('x'.repeat(MAX_RECORDED_BODY_CHARS - 3) + '***');
    expect(r.clipped).toBe(true);
    expect(r.size).toBe(Buffer.byteLength(body));
    expect(r.text).not.toContain('tok-');
    const short = recordExchange(exchange(`{"a":"${secret}"}`), [secret]).response!.body;
    expect(short).toEqual({ text: '{"a":"***"}', size: Buffer.byteLength(`{"a":"${secret}"}`) });
  });

  it('do not keep the whole body alive: 200 recorded 1 MiB bodies hold a few MB, not 200', async () => {
    const script = `
      import { recordExchange } from './src/check/run/exchange-record.ts';
      const kept = [];
      for (let i = 0; i < 200; i++) {
        const body = Buffer.alloc(1 << 20, 97 + (i % 26)).toString('latin1');
        kept.push(recordExchange({ id: i, endpoint: 'reportUsage', request: { method: 'PUT', url: 'http://t/', headers: {}, body: new Uint8Array(0) },
          response: { status: 200, headers: {}, body, truncated: false }, verdict: 'protocol-error', reason: 'x', timings: { startedAt: 0, totalMs: 1 } }, ['s3cret']));
      }
      globalThis.gc(); globalThis.gc();
      console.log(JSON.stringify({ heap: process.memoryUsage().heapUsed, kept: kept.length }));
    `;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, timeout: 60_000 }, (e, stdout, stderr) =>
        e ? reject(new Error(`${e.message}: ${stderr}`)) : resolve(stdout),
      ),
    );
    const { heap, kept } = JSON.parse(out) as { heap: number; kept: number };
    expect(kept).toBe(200);
    expect(heap, `heap ${(heap / 1024 / 1024).toFixed(0)} MB after GC`).toBeLessThan(60 * 1024 * 1024);
  });
});
