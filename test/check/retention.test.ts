/**
 * Issue 32 item 6: a phase keeps the exchanges of the first case of each distinct finding only, and
 * the report still shows them. A run whose every case fails once held every case's requests.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccepted, violation } from '../../src/check/judge/judge.ts';
import { READING_FREE, specJudgement } from '../../src/check/judge/judgements.ts';
import { defineProperty, unknownOutcome, PASS, type Property } from '../../src/check/property.ts';
import type { CaseRun } from '../../src/check/run/case-runner.ts';
import { counterexampleText, runProperties } from '../../src/check/run/index.ts';
import { curlLines } from '../../src/report/curl-lines.ts';
import { EvidenceRetention } from '../../src/check/run/retention.ts';
import type { Exchange } from '../../src/target/client.ts';
import { startStandIn, standInProfile, type StandIn } from './stand-in.ts';

let srv: StandIn;
beforeAll(async () => {
  srv = await startStandIn(() => 'ok');
});
afterAll(async () => {
  await srv.close();
});

const j = specJudgement('synthetic.retention', 'a rule', 'envelopeFields', READING_FREE);
const failing = violation(j, 'broken');

/** A case at `index` with `sent` stand-in exchanges (only their count and identity matter here). */
function caseRun(index: number, outcome: CaseRun['outcome'], more: Partial<CaseRun> = {}): CaseRun {
  const exchanges = Array.from({ length: 3 }, (_, k) => ({ id: index * 10 + k }) as unknown as Exchange);
  return { input: index, outcome, exchanges, verdict: { kind: 'judged' }, crashed: false, cut: false, requestsAtEnd: index, ...more };
}

describe('EvidenceRetention', () => {
  it('keeps the earliest case of each key, whatever order the cases end in, and drops every other', () => {
    const retention = new EvidenceRetention();
    const order = [7, 3, 9, 0, 5, 1, 8, 2, 6, 4, 11, 10];
    const runs = new Map<number, CaseRun>();
    for (const i of order) {
      // 0-3 pass; 4-7 fail in part "a" or "b" by parity; 8-9 are unknown notes (one topic: ids and numbers vary); 10 cut, 11 crashed.
      const outcome = i < 4 ? PASS : i < 8 ? failing : i < 10 ? unknownOutcome(`answer ${i} unreadable`) : failing;
      const run = caseRun(i, outcome, { cut: i === 10, crashed: i === 11 });
      runs.set(i, retention.hold(i, run, i % 2 === 0 ? 'a' : 'b'));
    }
    const kept = [...runs].filter(([, r]) => r.exchanges.length > 0).map(([i]) => i).sort((x, y) => x - y);
    // 4 and 5: the first failure of "a" and of "b"; 8: the first of the note's topic; 11: the crash.
    expect(kept).toEqual([4, 5, 8, 11]);
    expect(retention.dropped).toBe((runs.size - kept.length) * 3);
    // What was kept is the case's own: its exchanges were not swapped for another's.
    for (const i of kept) expect(runs.get(i)!.exchanges.map((e) => e.id)).toEqual([i * 10, i * 10 + 1, i * 10 + 2]);
  });
});

describe('a run whose every case fails', () => {
  const send = (ctx: Parameters<Property['check']>[0], n: number, step: number) =>
    ctx.call({ endpoint: 'reportUsage', params: { sourceId: ctx.sourceId() }, body: { rows: [] }, as: 'anonymous', headers: { 'x-value': `${n}-${step}` } });
  // Every case sends two requests and fails: in part "odd" or "even", or (n % 5 = 0) with a note.
  const allFail = defineProperty<number>({
    id: 'synthetic.all-fail',
    section: '2.1',
    invariant: 'never holds',
    assumptions: [],
    judgements: [j],
    needs: [],
    arbitrary: () => fc.integer({ min: 0, max: 100_000 }),
    async check(ctx, n) {
      for (const step of [1, 2]) {
        const ok = expectAccepted(await send(ctx, n, step));
        if (!ok.ok) return ok;
      }
      if (n % 5 === 0) return unknownOutcome(`case ${n} says nothing`);
      const o = violation(j, `n = ${n}`);
      return o.ok ? o : { ...o, part: n % 2 === 0 ? 'even' : 'odd' };
    },
  });

  it("shows each finding with its own case's requests, and no more than a case's", async () => {
    const run = await runProperties(standInProfile(srv.url), [allFail as Property], { seed: 11, runs: 120, concurrency: 8, shrink: false });
    const findings = run.results[0]!.findings;
    const violations = findings.filter((f) => f.kind === 'violation');
    expect(violations).toHaveLength(2);
    const note = findings.find((f) => f.kind === 'unknown');
    expect(note?.occurrences).toBeGreaterThan(1);
    for (const f of [...violations, note!]) {
      // The case shown is the one whose requests are shown: both of its requests, by their x-value.
      const n = /(\d+)$/.exec(counterexampleText(f) ?? '')![1];
      expect(f.exchanges?.map((e) => e.request.headers['x-value'])).toEqual([`${n}-1`, `${n}-2`]);
      expect(curlLines(f).filter((c) => c.includes(`x-value: ${n}-`))).toHaveLength(2);
    }
  });
});
