import { describe, expect, it } from 'vitest';
import { badBody, BAD, HUGE_NUMBER_DIGITS, withHugeExponents, withLateDuplicate } from '../../properties/robustness.ts';
import { fittingPairs, predict, USAGE_READING_PAIRS, type UsageRequest, type UsageRow } from '../../src/check/model/usage-model.ts';
import { calibrated } from '../../properties/support/usage.ts';
import { commitOutcome } from '../../src/check/judge/commit-outcome.ts';
import { effectOf } from '../../src/check/judge/judge.ts';
import { readingsOf, refusalExpected, situationsIn } from '../../src/check/model/situations.ts';
import { DEFAULT_ASSUMPTIONS, ENDPOINT_BY_ID, hasAlternatives, resolveAssumptions } from '../../src/spec/index.ts';
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

  it('calibrates each source with answers that differ under every pair of readings and from meanings no reading names', () => {
    const plan = calibrated([{ source: 0, rows: [row(1)] }]).slice(0, 3);
    const answers = USAGE_READING_PAIRS.map((p) => JSON.stringify(predict(plan, p.key, p.stored)));
    // rows-accepted counts the rows sent whatever the key: one answer for both keys; every other pair its own.
    expect(new Set(answers).size).toBe(USAGE_READING_PAIRS.length - 1);
    expect(predict(plan, 'day-assistant-model', 'rows-changed')).toEqual([3, 3, 3]);
    expect(predict(plan, 'day-assistant-model', 'rows-held')).toEqual([3, 6, 8]);
    expect(predict(plan, 'day-assistant-model', 'rows-accepted')).toEqual([3, 3, 4]);
    expect(predict(plan, 'day-assistant', 'rows-changed')).toEqual([2, 3, 3]);
    expect(predict(plan, 'day-assistant', 'rows-held')).toEqual([2, 4, 5]);
    // Requests counted, tokens counted, rows inserted but not raised, a key of the day alone, a constant:
    // no known reading fits, so the reading is unknown rather than guessed.
    for (const unnamed of [[1, 2, 3], [8000, 28000, 36000], [3, 3, 2], [2, 2, 1], [2, 2, 2], [1, 1, 1], [0, 0, 0]]) expect(fittingPairs(plan, unnamed)).toEqual([]);
    expect(fittingPairs(plan, [3, 3, 3])).toEqual([{ key: 'day-assistant-model', stored: 'rows-changed' }]);
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
  it('names the situations a schema-valid body holds, and the readings that cover them', () => {
    const astral = '\u{1F600}'.repeat(120);
    expect(situationsIn('reportUsage', { rows: [{ ...row(1), model: astral }] })).toEqual([{ situation: 'text-over-limit-in-utf16', path: 'rows[].model' }]);
    expect(situationsIn('reportUsage', { rows: [{ ...row(1), model: '\u00e9'.repeat(100) }] })).toEqual([{ situation: 'text-over-limit-in-bytes', path: 'rows[].model' }]);
    expect(readingsOf('reportUsage', { rows: [{ ...row(1), model: astral }] })).toEqual(['characters-are-code-points']);
    expect(readingsOf('reportUsage', { rows: [{ ...row(1), input: -1 }] })).toEqual(['usage-counters-negative']);
    expect(readingsOf('reportUsage', { rows: [], extra: 1 }).sort()).toEqual(['empty-lists', 'unknown-fields-ignored']);
    expect(readingsOf('reportUsage', { rows: [row(1)] })).toEqual([]);
    expect(situationsIn('reportUsage', { rows: [{ ...row(1), day: '2099-01-01' }] }, '2026-11-23')).toEqual([{ situation: 'future-usage-day', path: 'rows[].day' }]);
    // Covers as data: the run's reading expects the refusal only where it covers the situation.
    expect(refusalExpected('empty-list', DEFAULT_ASSUMPTIONS)).toBe(false);
    expect(refusalExpected('empty-list', { ...DEFAULT_ASSUMPTIONS, 'empty-lists': 'rejected' })).toBe(true);
    expect(refusalExpected('text-over-limit-in-bytes', { ...DEFAULT_ASSUMPTIONS, 'characters-are-code-points': 'utf16' })).toBe(false);
    expect(refusalExpected('text-over-limit-in-utf16', { ...DEFAULT_ASSUMPTIONS, 'characters-are-code-points': 'bytes' })).toBe(true);
  });

  it('answers applied, refused or unknown per op under every form of refusal', () => {
    const ops = [{ artifact_id: 'A', revision_id: 'r1' }, { artifact_id: 'B', revision_id: 'r2' }];
    const ok = (results: unknown[]) => exchange(200, { ok: true, data: { results }, meta: { request_id: 'x' } });
    expect(commitOutcome(ok([{ status: 'applied', artifact_id: 'a', revision_id: 'R1' }, { status: 'applied', artifact_id: 'B', revision_id: 'r2' }]), ops, DEFAULT_ASSUMPTIONS).batch).toBe('applied');
    const perOp = commitOutcome(ok([{ status: 'conflict', artifact_id: 'B', revision_id: 'r2' }, { status: 'applied', artifact_id: 'A', revision_id: 'r1' }]), ops, DEFAULT_ASSUMPTIONS);
    expect(perOp.ops).toEqual(['applied', 'refused']);
    expect(perOp.batch).toBe('partial');
    expect(perOp.conflictForm).toMatchObject({ kind: 'assumption', assumption: 'conflict-behaviour' });
    const read = resolveAssumptions({ 'conflict-behaviour': 'per-op-status' });
    expect(commitOutcome(ok([{ status: 'conflict', artifact_id: 'A', revision_id: 'r1' }, { status: 'aborted', artifact_id: 'B', revision_id: 'r2' }]), ops, read)).toMatchObject({ batch: 'refused', conflictForm: { ok: true } });
    for (const status of [400, 409, 412]) expect(commitOutcome(exchange(status, { ok: false }), ops, DEFAULT_ASSUMPTIONS)).toMatchObject({ batch: 'refused', conflictForm: { ok: true } });
    expect(commitOutcome(exchange(412, {}), ops, resolveAssumptions({ 'conflict-status': '409' })).conflictForm).toMatchObject({ assumption: 'conflict-status' });
    expect(commitOutcome(exchange(503), ops, DEFAULT_ASSUMPTIONS).batch).toBe('unknown');
    expect(commitOutcome(exchange(undefined), ops, DEFAULT_ASSUMPTIONS).ops).toEqual(['unknown', 'unknown']);
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
  it('repeat the last member of the last-written object, same value, so last-wins reads the body unchanged', () => {
    const body = { day: '2026-01-01', rows: [{ a: 1 }, { b: 'x\\"}', c: { d: [1] } }] };
    const text = withLateDuplicate(body);
    expect(text).toBe('{"day":"2026-01-01","rows":[{"a":1},{"b":"x\\\\\\"}","c":{"d":[1],"d":[1]}}]}');
    expect(JSON.parse(text)).toEqual(body);
    expect(withLateDuplicate({ reason: 'r' })).toBe('{"reason":"r","reason":"r"}');
  });

  it('put the lone surrogate at the end of each free-text string (a model, a welcome), never in a uuid, a day or a string of an alphabet', () => {
    const usage = { rows: [{ input: 0, output: 0, cache_read: 0, cache_write: 0, day: '2026-01-01', assistant: 'aaaa', model: 'mmmm' }] };
    const text = badBody(JSON.stringify(usage), 'lone-surrogate-in-text', 'rows', ENDPOINT_BY_ID.reportUsage.body).raw as string;
    expect(text).toBe(JSON.stringify(usage).replace('"mmmm"', '"mmmm\\ud800"'));
    expect((JSON.parse(text) as typeof usage).rows[0]!.model).toBe('mmmm\ud800');
    const approve = { statement: { statement: 's', signature: 'g' }, welcome: 'w', key_envelopes: [] };
    const parsed = JSON.parse(badBody(JSON.stringify(approve), 'lone-surrogate-in-text', 'statement', ENDPOINT_BY_ID.approveDevice.body).raw as string) as typeof approve;
    expect([parsed.statement.statement, parsed.statement.signature, parsed.welcome]).toEqual(['s\ud800', 'g\ud800', 'w\ud800']);
  });

  it('put 1e400 in place of every bounded integer (the usage counters), and apply nowhere else', () => {
    const usage = { rows: [{ input: 0, output: 0, cache_read: 0, cache_write: 0, day: '2026-01-01', assistant: 'aaaa', model: 'mmmm' }] };
    const text = withHugeExponents(JSON.stringify(usage), ENDPOINT_BY_ID.reportUsage.body)!;
    expect(text).toBe('{"rows":[{"input":1e400,"output":1e400,"cache_read":1e400,"cache_write":1e400,"day":"2026-01-01","assistant":"aaaa","model":"mmmm"}]}');
    // A key envelope outside the roster: its key_gen is a plain integer, with no bound to break.
    const approve = { statement: { statement: 's', signature: 'g' }, welcome: 'w', key_envelopes: [{ key_gen: 1 }] };
    expect(withHugeExponents(JSON.stringify(approve), ENDPOINT_BY_ID.approveDevice.body)).toBeUndefined();
    // The same places take the thousands of digits of huge-integer.
    const digits = badBody(JSON.stringify(usage), 'huge-integer', 'rows', ENDPOINT_BY_ID.reportUsage.body).raw as string;
    expect(digits).toBe(text.replaceAll('1e400', '9'.repeat(HUGE_NUMBER_DIGITS)));
  });

  it('are not JSON the endpoint takes, except those that rest on readings, the huge number (a type error) and the tolerated lone surrogate', () => {
    for (const json of ['{}', '{"rows":[]}']) {
      for (const bad of BAD) {
        const { raw, headers } = badBody(json, bad, 'rows');
        const text = typeof raw === 'string' ? raw : new TextDecoder('utf-8', { fatal: false }).decode(raw);
        let parsed: unknown ;
        try {
          if (typeof raw !== 'string') new TextDecoder('utf-8', { fatal: true }).decode(raw);
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        if (bad === 'text-plain') expect(headers?.['content-type']).toBe('text/plain');
        else if (bad === 'duplicate-keys') expect(text).toMatch(/"(rows|a)":.*"\1":/);
        else if (bad === 'duplicate-keys-late') expect(text).toMatch(/"(rows|b)":(.*),"\1":\2\}$/);
        else if (bad === 'not-an-object') expect(typeof parsed).toBe('string');
        else if (bad === 'deep-nesting') expect(text.startsWith('{"rows":[[[[')).toBe(true);
        else if (bad === 'duplicate-keys-escaped') expect(text).toMatch(/"(rows|a)":(.*),"\\u00[0-9a-f]{2}\w*":\2\}$/);
        else if (bad === 'huge-number') expect(parsed).toEqual({ rows: Infinity });
        else if (bad === 'huge-exponent' || bad === 'huge-integer') expect(parsed).toEqual(JSON.parse(json));
        else if (bad === 'lone-surrogate' || bad === 'lone-surrogate-in-text') expect((parsed as { x?: string }).x).toBe('\ud800');
        else expect(parsed, `${bad} of ${json}`).toBeUndefined();
      }
    }
  });
});
