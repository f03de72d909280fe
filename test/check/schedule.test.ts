/**
 * Which properties run side by side (src/check/run/schedule.ts), the case slots they share, and a
 * console view that follows several properties at once. The same findings side by side as one at a
 * time, against the reference, is test/check/side-by-side.test.ts (slow tier).
 */
import { describe, expect, it } from 'vitest';
import { ALL_PROPERTIES } from '../../properties/index.ts';
import { parseSuiteArgs } from '../../src/cli/commands/run.ts';
import { Slots } from '../../src/check/run/pool.ts';
import { runsBesideOthers, stepsOf, unitsLeft } from '../../src/check/run/schedule.ts';
import type { PropertyResult } from '../../src/check/run/index.ts';
import { ConsoleView } from '../../src/report/console.ts';
import { RequestCounter, UNREACHABLE_AFTER } from '../../src/check/run/context.ts';
import type { Exchange } from '../../src/target/client.ts';

describe('runsBesideOthers', () => {
  it('lets only properties whose state is all fresh run side by side: never the browser\'s, the account\'s, the embedded-only or the measured-alone', () => {
    const beside = ALL_PROPERTIES.filter(runsBesideOthers).map((p) => p.id);
    const alone = ALL_PROPERTIES.filter((p) => !runsBesideOthers(p));
    expect(beside).toContain('usage.commutative');
    expect(beside).toContain('commits.model-sequences');
    expect(beside).toContain('races.linearizable');
    expect(beside).toContain('auth.cross-account');
    // The cost probe and the oversized body are measured alone; the browser's and the account's state is shared.
    for (const id of ['performance.cost-growth', 'robustness.oversized-body', 'unlock.head-seq', 'roster.limits-only-in-roster', 'approve.device-created', 'boundaries.limits-accepted']) {
      expect(alone.map((p) => p.id), id).toContain(id);
    }
    for (const p of alone) expect(p.concurrency === 1 || p.needs.some((n) => !['device', 'second-account', 'pouch'].includes(n)), p.id).toBe(true);
  });
});

describe('stepsOf', () => {
  const fresh = { needs: ['device', 'pouch'] as const, concurrency: undefined };
  const browser = { needs: ['browser'] as const, concurrency: undefined };
  const measured = { needs: ['device'] as const, concurrency: 1 };
  const props = [browser, fresh, measured, fresh, fresh, browser];

  it('one at a time keeps every property alone, in the selection\'s order', () => {
    expect(stepsOf(props, 1)).toEqual(props.map((_, i) => ({ indices: [i], atOnce: 1 })));
  });

  it('side by side runs the fresh-state properties first, together, then each other one alone in order', () => {
    expect(stepsOf(props, 4)).toEqual([{ indices: [1, 3, 4], atOnce: 3 }, { indices: [0], atOnce: 1 }, { indices: [2], atOnce: 1 }, { indices: [5], atOnce: 1 }]);
    expect(stepsOf(props, 2)[0]).toEqual({ indices: [1, 3, 4], atOnce: 2 });
    expect(stepsOf([browser, measured], 4)).toEqual([{ indices: [0], atOnce: 1 }, { indices: [1], atOnce: 1 }]);
  });

  it('shares the budget over the time left to run: a step\'s properties side by side count for their share of it', () => {
    const steps = stepsOf(props, 3);
    const runnable = props.map(() => true);
    // Three together take the time of one, and three alone: four units.
    expect(unitsLeft(steps, new Set(), runnable)).toBe(4);
    expect(unitsLeft(steps, new Set([1, 3, 4]), runnable)).toBe(3);
    expect(unitsLeft(steps, new Set([1, 3, 4, 0, 2, 5]), runnable)).toBe(1);
    expect(unitsLeft(stepsOf(props, 1), new Set(), runnable)).toBe(6);
    expect(unitsLeft(steps, new Set(), props.map((_, i) => i !== 0))).toBe(3);
  });
});

describe('Slots', () => {
  it('never lets more than its count run at once, and serves waiters in the order they came', async () => {
    const slots = new Slots(3);
    let inFlight = 0;
    let peak = 0;
    const order: number[] = [];
    await Promise.all(Array.from({ length: 12 }, (_, i) => slots.with(async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      order.push(i);
      await new Promise((r) => setTimeout(r, 2));
      inFlight--;
    })));
    expect(peak).toBe(3);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it('frees a slot when the work throws', async () => {
    const slots = new Slots(1);
    await expect(slots.with(async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    await expect(slots.with(async () => 'next')).resolves.toBe('next');
  });
});

describe('--properties-at-once', () => {
  it('is a whole number from 1; left out, the session\'s default applies', () => {
    expect(parseSuiteArgs({ 'properties-at-once': 1 }).session.propertiesAtOnce).toBe(1);
    expect(parseSuiteArgs({}).session.propertiesAtOnce).toBeUndefined();
    expect(() => parseSuiteArgs({ 'properties-at-once': 0 })).toThrow(/--properties-at-once must be an integer from 1/);
    expect(() => parseSuiteArgs({ 'properties-at-once': NaN })).toThrow(/--properties-at-once/);
  });
});

describe('the console view with properties side by side', () => {
  const result = (id: string): PropertyResult => ({ id, section: '4.2', status: 'passed', runs: 3, requests: 9, durationMs: 10, findings: [] });

  it('prints each property\'s line as it ends, in any order, shows the others in flight, and clears the bar once all have ended', () => {
    let out = '';
    const view = new ConsoleView({ out: { write: (s: string) => (out += s), isTTY: true, columns: 200 }, env: { NO_COLOR: '1' } });
    view.onProgress({ type: 'property-start', id: 'a.first', section: '4.2', index: 0, total: 2 });
    view.onProgress({ type: 'property-start', id: 'b.second', section: '4.3', index: 1, total: 2 });
    view.onProgress({ type: 'case', id: 'a.first', cases: 1, runs: 3, requests: 2, elapsedMs: 5 });
    expect(out).toContain('a.first  case 0');
    expect(out).toContain('(+1 beside it)');
    view.onProgress({ type: 'property-end', result: result('b.second'), index: 1, total: 2, ended: 1 });
    expect(out).toMatch(/ok\s+b\.second/);
    expect(out).toContain('1/2 done');
    out = '';
    view.onProgress({ type: 'property-end', result: result('a.first'), index: 0, total: 2, ended: 2 });
    expect(out).toMatch(/ok\s+a\.first/);
    // The last end clears the bar and draws none after its line.
    expect(out.slice(out.lastIndexOf('\n') + 1)).toBe('');
    expect(out).not.toContain('done');
  });
});

describe('a wave of timeouts from requests sent together', () => {
  const ex = (startedAt: number, answered: boolean): Exchange =>
    ({ verdict: answered ? 'accepted' : 'transport-error', ...(answered ? {} : { failure: 'timeout' }), reason: answered ? 'HTTP 200' : 'no response within 500 ms', timings: { startedAt, totalMs: 1 } }) as unknown as Exchange;

  it('is not a target that stopped answering when it answered after they were sent; requests sent after its last answer are', async () => {
    const counter = new RequestCounter();
    const sent = Date.now() - 1000;
    await counter.record(ex(sent, true));
    // Sixty requests in flight together, sent before that answer came, time out one after another.
    for (let i = 0; i < 60; i++) await counter.record(ex(sent, false));
    expect(counter.unreachable).toBe(false);
    // Then UNREACHABLE_AFTER sent after it, none answered: it stopped answering.
    for (let i = 0; i < UNREACHABLE_AFTER; i++) await counter.record(ex(Date.now() + 1, false));
    expect(counter.unreachable).toBe(true);
  });
});
