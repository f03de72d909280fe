import { describe, expect, it } from 'vitest';
import { badBody, BAD } from '../../properties/robustness.ts';
import { predict, type UsageRequest, type UsageRow } from '../../properties/support/usage-model.ts';
import { calibrated } from '../../properties/support/usage.ts';
import { effectOf, hasAlternatives, judgeRefusal, readingsOf } from '../../src/check/judge.ts';
import type { Exchange } from '../../src/target/client.ts';

const row = (input: number, output = 0, model = 'm'): UsageRow => ({ day: '2026-01-01', assistant: 'a', model, input, output, cache_read: 0, cache_write: 0 });

describe('the usage merge model', () => {
  it('answers rows-changed: new rows, raises and nothing for lower or equal totals', () => {
    const plan: UsageRequest[] = [
      { source: 0, rows: [row(5), row(1, 0, 'n')] },
      { source: 0, rows: [row(5)] },
      { source: 0, rows: [row(3)] },
      { source: 0, rows: [row(6)] },
    ];
    expect(predict(plan, 'day-assistant-model', 'rows-changed')).toEqual([2, 0, 0, 1]);
    expect(predict(plan, 'day-assistant-model', 'rows-held')).toEqual([2, 2, 2, 2]);
    expect(predict(plan, 'day-assistant-model', 'rows-accepted')).toEqual([2, 1, 1, 1]);
  });

  it('keeps the whole row with the larger total: a lower total with one higher counter changes nothing', () => {
    const plan: UsageRequest[] = [{ source: 0, rows: [row(10, 0)] }, { source: 0, rows: [row(0, 5)] }];
    expect(predict(plan, 'day-assistant-model', 'rows-changed')).toEqual([1, 0]);
  });

  it('tells the two key readings apart: another model of the same day and assistant is one row under day-assistant', () => {
    const plan: UsageRequest[] = [{ source: 0, rows: [row(10)] }, { source: 0, rows: [row(20, 0, 'n')] }];
    expect(predict(plan, 'day-assistant-model', 'rows-held')).toEqual([1, 2]);
    expect(predict(plan, 'day-assistant', 'rows-held')).toEqual([1, 1]);
    expect(predict(plan, 'day-assistant', 'rows-changed')).toEqual([1, 1]);
  });

  it('leaves stored unjudged for a request naming one key twice', () => {
    expect(predict([{ source: 0, rows: [row(1), row(2)] }], 'day-assistant-model', 'rows-changed')).toEqual([undefined]);
  });

  it('calibrates each source so that rows-held no longer explains a summing server', () => {
    const plan = calibrated([{ source: 0, rows: [row(1)] }, { source: 0, rows: [row(1)] }]);
    // A summing server with rows-changed answers 1, 1, 1; rows-held answers 1, 2, 2.
    expect(predict(plan, 'day-assistant-model', 'rows-held')).toEqual([1, 2, 2]);
    expect(predict(plan, 'day-assistant-model', 'rows-changed')).toEqual([1, 1, 0]);
  });
});

function exchange(status: number | undefined, json?: unknown): Exchange {
  return {
    id: 1,
    endpoint: 'reportUsage',
    request: { method: 'PUT', url: 'http://127.0.0.1/v1/usage/sources/x', headers: {}, body: new Uint8Array() },
    ...(status === undefined ? {} : { response: { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(json ?? {}), truncated: false, json } }),
    verdict: status === undefined ? 'transport-error' : status >= 500 ? 'server-error' : status >= 400 ? 'rejected' : 'accepted',
    reason: status === undefined ? 'connection reset' : `status ${status}`,
    timings: { startedAt: 0, totalMs: 1 },
  };
}

describe('judging refusals', () => {
  it('names the readings a schema-valid body rests on', () => {
    const astral = '\u{1F600}'.repeat(120);
    expect(readingsOf('reportUsage', { rows: [{ ...row(1), model: astral }] })).toEqual(['characters-are-code-points']);
    expect(readingsOf('reportUsage', { rows: [{ ...row(1), input: -1 }] })).toEqual(['usage-counters-negative']);
    expect(readingsOf('reportUsage', { rows: [], extra: 1 })).toEqual(['unknown-fields-ignored']);
    expect(readingsOf('reportUsage', { rows: [row(1)] })).toEqual([]);
  });

  it('is a violation only when the request is letter-valid and a plain request is served', () => {
    const refused = exchange(400, { ok: false });
    const ok = exchange(200, { ok: true, data: { stored: 1 }, meta: { request_id: 'r' } });
    expect(judgeRefusal(refused, { readings: [], baseline: ok, environment: 'caller-kinds' })).toMatchObject({ ok: false, kind: 'violation' });
    expect(judgeRefusal(refused, { readings: [], baseline: refused, environment: 'caller-kinds' })).toMatchObject({ ok: false, kind: 'assumption', assumption: 'caller-kinds' });
    expect(judgeRefusal(refused, { readings: ['characters-are-code-points'], environment: 'caller-kinds' })).toMatchObject({ kind: 'assumption', assumption: 'characters-are-code-points' });
    expect(judgeRefusal(exchange(503), { readings: [], environment: 'caller-kinds' })).toMatchObject({ kind: 'server-error' });
  });

  it('counts a timeout or a 5xx as maybe applied, never as refused', () => {
    expect(effectOf(exchange(undefined))).toBe('maybe');
    expect(effectOf(exchange(500))).toBe('maybe');
    expect(effectOf(exchange(409))).toBe('refused');
    expect(effectOf(exchange(200))).toBe('applied');
  });

  it('knows which registry entries have alternative readings', () => {
    expect(hasAlternatives('revision-id-unique')).toBe(true);
    expect(hasAlternatives('op-semantics')).toBe(false);
  });
});

describe('bad bodies', () => {
  it('are not JSON the endpoint takes, except the two that rest on readings', () => {
    for (const json of ['{}', '{"rows":[]}']) {
      for (const bad of BAD) {
        const { raw, headers } = badBody(json, bad, 'rows');
        const text = typeof raw === 'string' ? raw : new TextDecoder('utf-8', { fatal: false }).decode(raw);
        let parsed: unknown = undefined;
        try {
          if (typeof raw !== 'string') new TextDecoder('utf-8', { fatal: true }).decode(raw);
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        if (bad === 'text-plain') expect(headers?.['content-type']).toBe('text/plain');
        else if (bad === 'duplicate-keys') expect(text).toMatch(/"(rows|a)":.*"\1":/);
        else if (bad === 'not-an-object') expect(typeof parsed).toBe('string');
        else if (bad === 'deep-nesting') expect(text.startsWith('{"rows":[[[[')).toBe(true);
        else expect(parsed, `${bad} of ${json}`).toBeUndefined();
      }
    }
  });
});
