/**
 * The runner's judgement of a target that goes down or cannot be vouched for, below the CLI: a
 * crash is confirmed with a fresh connection before it is named (a target that merely drops a
 * connection but still listens is no crash), the embedded reference's crash faults look like a dead
 * process from the client without touching pouchproof's own, and a spent time budget leaves
 * properties inconclusive, never passed.
 */
import fc from 'fast-check';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ALL_PROPERTIES } from '../../properties/index.ts';
import { expectAccepted, serverError } from '../../src/check/judge/judge.ts';
import { defineProperty, type Property } from '../../src/check/property.ts';
import { runProperties, runExitCode } from '../../src/check/run/index.ts';
import { curlLines } from '../../src/report/curl-lines.ts';
import { resolveTarget } from '../../src/target/resolve.ts';
import { standInProfile } from './stand-in.ts';
import { EMBEDDED_REFERENCE } from '../../src/reference/embedded.ts';
import { seedCount } from '../sweep.ts';

/**
 * The tiny-budget run's seeds: one in CI, three in the sweep (test/sweep.ts). Where the budget cuts
 * the suite is set by the clock, not the seed, so each run is a new draw of cut points whatever its
 * seed; a further seed adds ~15 s of CI for a handful of other random cases before the cut.
 */
const BUDGET_SEEDS = Array.from({ length: seedCount('POUCHPROOF_BUDGET_SEEDS', { ci: 1, sweep: 3 }) }, (_, i) => i + 1);

const byId = (id: string): Property => ALL_PROPERTIES.find((p) => p.id === id)!;

async function againstFault(fault: string, ids: string[]) {
  const t = await resolveTarget({ kind: 'embedded', faults: [fault] }, EMBEDDED_REFERENCE);
  try {
    return await runProperties(t.profile, ids.map(byId), { seed: 11, runs: 5, embedded: true, perRequestMs: 5000 });
  } finally {
    await t.close();
  }
}

describe('a target that goes down under a request', () => {
  it.each([
    ['deep-nesting-crash', 'robustness.still-serving'],
    ['dies-on-input', 'robustness.malformed-rejected'],
  ])('%s: one crash finding in %s naming the request, the rest not run, exit 1', async (fault, killer) => {
    const run = await againstFault(fault, [killer, 'usage.idempotent']);
    expect(runExitCode(run)).toBe(1);
    const [first, rest] = run.results;
    expect(first!.status).toBe('failed');
    expect(first!.findings.map((f) => f.kind)).toEqual(['crash']);
    const c = first!.findings[0]!;
    expect(c.message).toMatch(/^the target went down after (PUT|POST) \/v1\/\S+ \(connection closed by the target before a response\); a fresh connection was refused too/);
    expect(curlLines(c).at(-1)).toContain('curl ');
    expect(c.exchangeIds).toEqual([c.exchanges!.at(-1)!.id]);
    expect(c.detectedAfterRequests).toBeGreaterThan(0);
    expect(rest).toMatchObject({ status: 'skipped', findings: [{ kind: 'skipped', message: `not run: the target went down (see the crash finding of ${killer})` }] });
    expect(run.unreachable).toBeUndefined();
  });

  it('a target that drops connections but still listens is no crash: the fresh connection succeeds', async () => {
    let n = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        // The cases whose input is a multiple of four are dropped without an answer, the first time and
        // when the runner sends them again; the rest are answered. (Dropping every other request made the
        // outcome hang on arrival order: a retry that came right after its dropped first try was answered.)
        n++;
        if (Number(req.headers['x-case']) % 4 === 0) return req.socket.destroy();
        const text = '{"ok":true,"data":{"stored":0},"meta":{"request_id":"r"}}';
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const p = defineProperty<number>({
        id: 'synthetic.flaky', section: '4.3', invariant: 'a usage report is accepted', assumptions: [], needs: [],
        arbitrary: () => fc.integer(),
        async check(ctx, input) {
          return expectAccepted(await ctx.call({ endpoint: 'reportUsage', params: { sourceId: ctx.sourceId() }, body: { rows: [] }, as: 'anonymous', headers: { 'x-case': String(input) } }));
        },
      });
      const run = await runProperties(standInProfile(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), [p as Property], { seed: 2, runs: 10 });
      const kinds = run.results[0]!.findings.map((f) => f.kind);
      expect(kinds).not.toContain('crash');
      expect(kinds).toContain('transport');
      // Most cases completed: the property vouches for those (passed), and the run is not ended.
      expect(n).toBeGreaterThan(10);
      expect(run.results[0]!.status).toBe('passed');
      expect(runExitCode(run)).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('the run\'s time budget', () => {
  it('shares the budget out; a property it left no time for is inconclusive and listed as not run; the run exits 2', async () => {
    const t = await resolveTarget({ kind: 'embedded' }, EMBEDDED_REFERENCE);
    try {
      const call = (ctx: Parameters<Property['check']>[0]) => ctx.call({ endpoint: 'reportUsage', params: { sourceId: ctx.sourceId() }, body: { rows: [] } });
      const quick = defineProperty<number>({
        id: 'synthetic.quick', section: '4.3', invariant: 'a usage report is accepted', assumptions: [], needs: [],
        runs: 1,
        arbitrary: () => fc.constant(1),
        async check(ctx) {
          return expectAccepted(await call(ctx));
        },
      });
      // Work that no time bound interrupts (a long computation, say) overruns its share: the budget is then spent.
      const overrun = defineProperty<number>({ ...quick, id: 'synthetic.overrun',
        async check(ctx) {
          await new Promise((r) => setTimeout(r, 3500));
          return expectAccepted(await call(ctx));
        } });
      const after = defineProperty<number>({ ...quick, id: 'synthetic.after' });
      const run = await runProperties(t.profile, [quick as Property, overrun as Property, after as Property], { seed: 1, runs: 3, maxDurationMs: 3000, embedded: true });
      expect(run.results.map((r) => r.status)).toEqual(['passed', 'inconclusive', 'inconclusive']);
      expect(run.results[0]!.timeBound).toBeUndefined();
      // Its call was ended by its share (pouchproof's own bound): no transport finding blames the target.
      expect(run.results[1]!.findings).toEqual([]);
      expect(run.results[1]!.inconclusive).toMatch(/^judged 0 of 1 random case \(its floor: 1\); not judged: 1 out of time; its share of the run's time budget \([0-9.]+ s\) ended it$/);
      expect(run.results[2]).toMatchObject({ runs: 0, requests: 0, inconclusive: "not run: the run's time budget (3 s) was spent" });
      expect(run.budget).toEqual({ maxDurationMs: 3000, cut: ['synthetic.overrun'], notRun: ['synthetic.after'] });
      expect(runExitCode(run)).toBe(2);
      expect(run.inconclusive).toMatch(/^could not vouch for 2 properties \(synthetic\.overrun, synthetic\.after\): synthetic\.overrun: judged 0 of 1 random case/);
    } finally {
      await t.close();
    }
  });
});

describe('a time bound that ends calls never makes a finding of them', () => {
  it('a property that reads a failed call as a target that stopped serving: cut, not a server error', async () => {
    const t = await resolveTarget({ kind: 'embedded' }, EMBEDDED_REFERENCE);
    try {
      const call = (ctx: Parameters<Property['check']>[0]) => ctx.call({ endpoint: 'reportUsage', params: { sourceId: ctx.sourceId() }, body: { rows: [] } });
      const strict = defineProperty<number>({
        id: 'synthetic.still-serving', section: '2', invariant: 'the target keeps serving', assumptions: [], needs: [],
        arbitrary: () => fc.constant(1),
        async check(ctx) {
          const first = expectAccepted(await call(ctx));
          if (!first.ok) return first;
          await new Promise((r) => setTimeout(r, 300));
          const next = await call(ctx); // ended at once by the bound: pouchproof's own doing
          return next.verdict === 'accepted' ? first : serverError(`the target stopped serving: ${next.reason}`);
        },
      });
      const run = await runProperties(t.profile, [strict as Property], { seed: 1, runs: 50, perPropertyMs: 450, embedded: true });
      expect(run.results[0]!.findings.filter((f) => f.kind !== 'transport')).toEqual([]);
      expect(['passed', 'inconclusive']).toContain(run.results[0]!.status);
      expect(run.results[0]!.timeBound).toEqual({ planned: 50 });
    } finally {
      await t.close();
    }
  });

  it('the whole suite on a tiny budget against the correct reference: no violation, server error or crash, ever', async () => {
    for (const seed of BUDGET_SEEDS) {
      const t = await resolveTarget({ kind: 'embedded' }, EMBEDDED_REFERENCE);
      try {
        const run = await runProperties(t.profile, ALL_PROPERTIES, { seed, runs: 25, maxDurationMs: 2500, embedded: true });
        const alarms = run.results.flatMap((r) => r.findings).filter((f) => f.kind !== 'skipped');
        expect(alarms.map((f) => `${f.property}: ${f.kind}: ${f.message}`), `seed ${seed}`).toEqual([]);
        expect(runExitCode(run) === 0 || (runExitCode(run) === 2 && run.inconclusive !== undefined)).toBe(true);
      } finally {
        await t.close();
      }
    }
  }, 60_000);
});
