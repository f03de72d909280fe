/** `pouchproof compare`: the same seeded cases against several reference servers, divergences classified. */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareTargets, type CompareTarget, type Comparison } from '../../src/compare/index.ts';
import { loadAllProperties } from '../../src/session/index.ts';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import type { Readings } from '../../src/spec/index.ts';
import { parseProfile } from '../../src/target/profile.ts';
import { compareJson, compareMarkdown, reproLines } from '../../src/report/compare-reports.ts';
import { compareHtml } from '../../src/report/compare-html.ts';
import { closedPort } from '../cli/spawn-cli.ts';
import { comparisonExitCode, sideExitCode } from '../../src/check/run/index.ts';

const started: RunningReference[] = [];
async function reference(readings: Readings = {}, faults: string[] = []): Promise<RunningReference> {
  const r = await startReference({ host: '127.0.0.1', port: 0, readings, faults });
  started.push(r);
  return r;
}
const side = (name: string, r: RunningReference, baseUrl?: string): CompareTarget => ({ name, profile: parseProfile({ ...r.profile, ...(baseUrl ? { baseUrl } : {}) }), embedded: false });

async function run(targets: CompareTarget[], only: string[], runs = 5): Promise<Comparison> {
  return compareTargets(targets, { props: await loadAllProperties(), seed: 11, runs, only });
}

let garbage: Server;
beforeAll(async () => {
  garbage = createServer((_q, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('hello, not json'));
  await new Promise<void>((r) => garbage.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  await Promise.all(started.map((r) => r.close()));
  await new Promise<void>((r) => garbage.close(() => r()));
});

describe('pouchproof compare', () => {
  it('two references in different readings: a matrix naming exactly those readings, no violation', async () => {
    const a = await reference({ 'usage-stored-meaning': 'rows-held' });
    const b = await reference({ 'empty-lists': 'rejected' });
    const c = await run([side('A', a), side('B', b)], ['rejection.no-side-effect', 'shapes.valid-accepted']);
    expect(c.readings.filter((r) => r.differ).map((r) => r.assumption).sort()).toEqual(['empty-lists', 'usage-stored-meaning']);
    expect(c.readings.find((r) => r.assumption === 'usage-stored-meaning')!.cells).toEqual({ A: 'rows-held', B: 'rows-changed' });
    expect(c.readings.find((r) => r.assumption === 'empty-lists')!.cells).toEqual({ A: 'accepted', B: 'rejected' });
    expect(c.divergences.map((d) => d.kind).sort()).toEqual(['readings', 'readings']);
    // The answers that differ are put down to the readings, not left unexplained.
    expect(c.divergences.reduce((n, d) => n + d.cases, 0)).toBeGreaterThan(0);
    expect(c.properties.flatMap((p) => Object.values(p.cells)).every((x) => x === 'passed')).toBe(true);
    expect(comparisonExitCode(c)).toBe(0);
    const md = compareMarkdown(c);
    expect(md).toContain('| usage-stored-meaning | rows-held | rows-changed | yes |');
    expect(md).not.toMatch(/Bearer [A-Za-z0-9]/);
  }, 60_000);

  it('a reference with a fault against a correct one: a violation on the faulty side only', async () => {
    const good = await reference();
    const bad = await reference({}, ['usage-summed']);
    const c = await run([side('good', good), side('bad', bad)], ['usage.idempotent', 'usage.never-summed']);
    const violations = c.divergences.filter((d) => d.kind === 'violation');
    expect(violations.length).toBeGreaterThan(0);
    for (const v of violations) {
      expect(v.wrong).toEqual(['bad']);
      const bs = v.sides.find((s) => s.name === 'bad')!;
      // The repro is kept as data (the side's requests, secrets masked) and rendered as curl lines by the reports.
      expect('exchanges' in bs.repro && bs.repro.exchanges.length).toBeGreaterThan(0);
      const lines = reproLines(bs.repro);
      expect(lines.some((l) => l.includes('curl '))).toBe(true);
      expect(lines.join('\n')).not.toMatch(/authorization: Bearer/i);
    }
    // compare.json writes the repros as those lines, as it always has.
    const json = JSON.parse(compareJson(c)) as { divergences: { kind: string; sides: { name: string; repro: unknown }[] }[] };
    const written = json.divergences.filter((d) => d.kind === 'violation').flatMap((d) => d.sides.filter((s) => s.name === 'bad').map((s) => s.repro));
    expect(written.length).toBe(violations.length);
    expect(written).toEqual(violations.map((v) => reproLines(v.sides.find((s) => s.name === 'bad')!.repro)));
    expect(JSON.stringify(json)).not.toMatch(/Bearer [A-Za-z0-9]/);
    expect(c.properties.every((p) => p.cells['good'] === 'passed')).toBe(true);
    expect(c.properties.some((p) => p.cells['bad'] === 'violation')).toBe(true);
    expect(comparisonExitCode(c)).toBe(1);
    // compare.html: each violation divergence with the side at fault and its repro; cells coloured; no script, no token.
    const html = compareHtml(c);
    expect(html.split('<article class="divergence" data-kind="violation">')).toHaveLength(violations.length + 1);
    expect(html).toContain('at fault by the spec\'s words: <b>bad</b>');
    expect(html).toMatch(/<span class="badge s-failed">violation<\/span>/);
    expect(html).toMatch(/<span class="badge s-passed">passed<\/span>/);
    expect(html).not.toMatch(/<script|Bearer [A-Za-z0-9]/);
  }, 60_000);

  it('the same target twice: no divergence', async () => {
    const r = await reference();
    const c = await run([side('one', r), side('two', r)], ['usage.*', 'commits.stale-base-rejected', 'approve.*'], 4);
    expect(c.casesCompared).toBeGreaterThan(10);
    expect(c.divergences).toEqual([]);
    expect(c.readings.some((x) => x.differ)).toBe(false);
    expect(comparisonExitCode(c)).toBe(0);
  }, 60_000);

  it('a side that is down or answers garbage is reported for that side; the other side stands', async () => {
    const r = await reference();
    const port = await closedPort();
    const gport = (garbage.address() as { port: number }).port;
    const c = await run([side('up', r), side('down', r, `http://127.0.0.1:${port}`), side('garbage', r, `http://127.0.0.1:${gport}`)], ['usage.idempotent'], 3);
    expect(c.properties.find((p) => p.id === 'usage.idempotent')!.cells['up']).toBe('passed');
    expect(c.sides.find((s) => s.name === 'up')!.unreachable).toBeUndefined();
    expect(c.sides.find((s) => s.name === 'down')!.unreachable).toMatch(/connection refused/);
    expect(c.sides.find((s) => s.name === 'garbage')!.unreachable).toMatch(/did not answer a plain request usably/);
    expect(c.divergences.filter((d) => d.wrong?.includes('up'))).toEqual([]);
    // The side that is down could not be judged (3); the garbage side's answers broke the spec, which outranks it (1).
    expect(c.sides.map((x) => [x.name, sideExitCode(x)])).toEqual([['up', 0], ['down', 3], ['garbage', 1]]);
    expect(comparisonExitCode(c)).toBe(1);
  }, 60_000);
});

describe('normalised answers', () => {
  const ex = (url: string, body: unknown, status: number, json: unknown) => ({
    id: 1, endpoint: 'commitOperations' as const,
    request: { method: 'POST', url, headers: {}, body: new Uint8Array(Buffer.from(JSON.stringify(body))) },
    response: { status, headers: {}, body: JSON.stringify(json), truncated: false, json },
    verdict: 'accepted' as const, reason: '', timings: { startedAt: 0, totalMs: 1 },
  });
  const commit = (pouch: string, art: string, seq: number, rid: string) =>
    ex(`http://h/v1/pouches/${pouch}/operations`, { ops: [{ artifact_id: art }] }, 200, { ok: true, data: { results: [{ status: 'applied', artifact_id: art, revision_id: 'aaaaaaaa-0000-4000-8000-000000000001', seq, high_water: seq } ] }, meta: { request_id: rid } });

  it('maps echoed ids by order, offsets seq, drops meta; a changed value is a difference', async () => {
    const { caseFacts, diffFacts } = await import('../../src/compare/index.ts');
    const a = caseFacts([commit('11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222', 7, 'r1')]);
    const b = caseFacts([commit('33333333-3333-4333-8333-333333333333', '44444444-4444-4444-8444-444444444444', 1000, 'r2')]);
    expect(diffFacts(a, b)).toEqual([]);
    expect(a.some((f) => f.value === '<id#1>')).toBe(true);
    expect(a.some((f) => f.value === '<new-id>')).toBe(true);
    const c = caseFacts([ex('http://h/v1/pouches/x/operations', {}, 409, { ok: false })]);
    expect(diffFacts(a, c).map((d) => d.path)).toContain('#1 commitOperations answer');
  });
});
