/**
 * report.html and findings.har from report objects built in-process: the verdict and why, properties
 * by section, findings with their evidence (escaped: a body holding `<script>` stays text), a
 * sequence's numbered steps, a history's SVG timeline (ambiguous ops dashed), readings, coverage and
 * load; the HAR checked against the HAR 1.2 schema. Secrets never reach either file.
 */
import { describe, expect, it } from 'vitest';
import { coverageTable } from '../../src/check/run/coverage-table.ts';
import { recordExchange } from '../../src/check/run/exchange-record.ts';
import { timelineData } from '../../src/check/model/linearizability/index.ts';
import type { Finding, RunResult } from '../../src/check/run/index.ts';
import type { Exchange } from '../../src/target/client.ts';
import { toHar } from '../../src/report/har.ts';
import type { LoadFigures } from '../../src/report/load/charts.ts';
import { toReportHtml, verdictWord } from '../../src/report/report-html.ts';
import { buildReport, ReportSchema, type Report } from '../../src/report/report-json.ts';
import { reportFiles } from '../../src/report/write.ts';
import { REQUEST_CONSTRAINTS } from '../../src/spec/index.ts';
import { harValidator } from './har-schema.ts';

const TOKEN = 'Bearer tok-9f8e7d6c5b4a-secret';
const JWK_D = 'd-PRIVATE-kEy-0123456789abcdefABCDEF';
const SCRIPT = '<script>alert("pwned")</script>';
const T0 = Date.parse('2026-11-25T10:00:00.000Z');

function exchange(id: number, o: { body?: Uint8Array; status?: number; resBody?: string; failure?: Exchange['failure'] } = {}): Exchange {
  return {
    id,
    endpoint: 'commitOperations',
    request: {
      method: 'POST',
      url: `http://127.0.0.1:9/v1/pouches/p-${id}/operations?trace=${id}`,
      headers: { authorization: TOKEN, 'content-type': 'application/json', 'service-signature': 'sig-not-a-secret' },
      body: o.body ?? new Uint8Array(Buffer.from(`{"ops":[],"note":"${JWK_D}"}`)),
    },
    ...(o.failure ? {} : { response: { status: o.status ?? 409, headers: { 'content-type': 'application/json' }, body: o.resBody ?? `{"error":"${SCRIPT}","echo":"${TOKEN}"}`, truncated: false } }),
    verdict: o.failure ? 'transport-error' : 'rejected',
    reason: o.failure ? 'connection reset' : `${o.status ?? 409}`,
    ...(o.failure ? { failure: o.failure } : {}),
    timings: { startedAt: T0 + id * 10, headersMs: 2.5, totalMs: 3.25 },
  };
}

const rec = (ex: Exchange) => recordExchange(ex, [TOKEN, JWK_D]);

const history = timelineData(
  'artifact A',
  [
    { id: 2, client: 'client-1', input: 'update r0→r1', output: 'applied', call: 100, ret: 130 },
    { id: 3, client: 'client-2', input: 'update r0→r2', output: 'applied', call: 105, ret: 128 },
    { id: 5, client: 'client-3', input: 'delete r1→r3', output: undefined, call: 110, ret: undefined },
  ],
  (op) => `${op.input}: ${op.output ?? 'unknown (may or may not have applied)'}`,
);

const findings: Record<string, Finding> = {
  linear: {
    kind: 'violation', property: 'races.linearizable', section: '4.2', judgement: 'races.linearizable', ground: '§4.2 "optimistic concurrency on revision ids"',
    message: `the history of artifact A is not linearizable ${SCRIPT}\nclient-1 |[==]| #2 …`, description: '3 clients × 4 rounds', input: { clients: 3, rounds: 4 }, replay: 'tok_replay-1', shrinks: 7,
    exchanges: [rec(exchange(1)), rec(exchange(2, { failure: 'closed' }))], timeline: history,
  },
  sequence: {
    kind: 'violation', property: 'commits.model-sequences', section: '4.2', judgement: 'commits.stale-not-applied', ground: '§4.2 "…"', message: 'step 2 applied on a stale base',
    description: '1. create 1 artifact(s) (pouch A)\n2. update on a stale base of artifact 1 of pouch A\n(2 step(s), one request each, in the order of the curl lines)',
    mismatch: { subject: 'status', expected: '4xx', observed: 200 }, exchangeIds: [5], omittedExchanges: 1, exchanges: [rec(exchange(4, { status: 200 })), rec(exchange(5, { status: 200, body: new Uint8Array([0xff, 0xfe, 0x00, 0x41]) }))],
  },
  reading: { kind: 'assumption', property: 'usage.merge', section: '4.3', assumption: 'usage-stored-meaning', ground: 'reading usage-stored-meaning', message: `stored total differs ${TOKEN}`, occurrences: 3, exchanges: [rec(exchange(7, { status: 200 }))] },
};

const load = {
  runId: 'load-1', scenario: 'commit-throughput', description: 'commits at full speed', unit: 'ops', target: { url: 'http://127.0.0.1:9', embedded: true }, model: 'closed', connections: 4,
  totals: { sent: 100, completed: 100, ok: 100, notOk: 0, errors: 0, dropped: 0, unsent: 0, units: 100, bytesSent: 1000, wallMs: 2000 },
  rates: { rps: 50, okPerSecond: 50, goodput: 50 }, errorRate: 0, latency: { count: 100, min: 900, mean: 1000, p50: 1000, p90: 1500, p99: 2000, p999: 2500, max: 3000 }, errorLatency: { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 },
  spectrum: [{ percentile: 50, us: 1000 }, { percentile: 90, us: 1500 }, { percentile: 99, us: 2000 }], timeline: [{ completed: 50, ok: 50, units: 50, errors: 0 }, { completed: 50, ok: 50, units: 50, errors: 0 }],
  checks: [{ name: 'seq-monotonic', passed: true, message: 'held' }], thresholds: [], generator: { busy: [], loopUtilization: [], prepareMs: [], limited: false, note: 'one worker' }, interrupted: false, exitCode: 0,
} as unknown as LoadFigures;

function runOf(fs: Finding[], o: Partial<RunResult> = {}): RunResult {
  const bySection = new Map<string, Finding[]>();
  for (const f of fs) bySection.set(f.property, [...(bySection.get(f.property) ?? []), f]);
  return {
    runId: '20261125-100000-00000001', seed: 1, target: 'http://127.0.0.1:9', startedAt: new Date(T0).toISOString(), durationMs: 1234, requests: 42, interrupted: false,
    results: [
      ...[...bySection].map(([id, list]) => ({ id, section: list[0]!.section, status: list.some((f) => f.kind === 'violation') ? ('failed' as const) : ('passed' as const), runs: 3, requests: 10, durationMs: 500, findings: list })),
      { id: 'shapes.ok', section: '2.1', status: 'passed', runs: 5, requests: 5, durationMs: 100, findings: [] },
      { id: 'roster.slow', section: '10', status: 'inconclusive', runs: 0, requests: 0, durationMs: 100, findings: [], inconclusive: 'no case completed' },
    ],
    ...o,
  };
}

function reportOf(fs: Finding[], o: Partial<RunResult> = {}, more: { load?: unknown; readings?: unknown } = {}): Report {
  return ReportSchema.parse(JSON.parse(JSON.stringify(buildReport(runOf(fs, o), { version: '0.0.0-test', targetName: 'staging', embedded: false, runs: 5, assumptions: { 'op-semantics': 'cas' }, secrets: [TOKEN, JWK_D], ...more }))));
}

describe('report.html', () => {
  const report = reportOf(Object.values(findings), {}, {
    load,
    readings: { readings: {}, table: [{ assumption: 'conflict-status', status: 'found', reading: '409', consistent: ['409'], evidence: [`POST … → 409 ${SCRIPT}`], detail: 'a conflict is a 409' }] },
  });
  const html = toReportHtml(report);

  it('says the verdict and why, and lists properties by section, in section order', () => {
    expect(verdictWord(report)).toBe('failed');
    expect(html).toMatch(/<div class="verdict v-failed" id="verdict"><b>FAILED<\/b> \(exit 1\)<ul><li>2 violation\(s\)/);
    const sections = [...html.matchAll(/<h3>§([\d.]+) /g)].map((m) => m[1]);
    expect(sections).toEqual(['2.1', '4.2', '4.3', '10']);
    expect(html).toContain('<span class="badge s-inconclusive">inconclusive</span>');
    expect(verdictWord(reportOf([], { inconclusive: '1 property completed no case' }))).toBe('inconclusive');
    expect(toReportHtml(reportOf([], { inconclusive: '1 property completed no case (roster.slow)' }))).toContain('inconclusive: 1 property completed no case (roster.slow)');
    expect(verdictWord(reportOf([], { results: [{ id: 'shapes.ok', section: '2.1', status: 'passed', runs: 5, requests: 5, durationMs: 100, findings: [] }] }))).toBe('passed');
    // Exit 3: the target could not be reached or stopped answering, its own colour and word.
    const down = toReportHtml(reportOf([], { unreachable: 'the target stopped answering: 8 requests in a row got no complete response' }));
    expect(down).toMatch(/<div class="verdict v-unreachable" id="verdict"><b>UNREACHABLE<\/b> \(exit 3\)<ul><li>target unreachable/);
    expect(down).toContain('.v-unreachable{');
  });

  it('escapes everything: a <script> in evidence, bodies or readings stays text; the only script is the page\'s own filter', () => {
    expect(html.match(/<script\b/g)).toHaveLength(1);
    expect(html).not.toContain(SCRIPT);
    expect(html).toContain('&#60;script&#62;alert(&#34;pwned&#34;)&#60;/script&#62;');
    // Nothing is fetched: no external resource of any kind.
    expect(html).not.toMatch(/<link|<img|<iframe|\bsrc=|url\(|@import|https?:\/\/(?!127\.0\.0\.1|www\.w3\.org\/2000\/svg)/i);
  });

  it('shows each finding with kind, ground, evidence, counterexample, replay token, curl lines and exchanges', () => {
    const articles = html.split('<article').slice(1);
    expect(articles).toHaveLength(3);
    // What fails the run comes first.
    expect(articles.map((a) => /data-kind="([^"]+)"/.exec(a)![1])).toEqual(['violation', 'violation', 'assumption']);
    const linear = articles[0]!;
    for (const s of ['races.linearizable', '§4.2 &#34;optimistic concurrency on revision ids&#34;', 'pouchproof replay tok_replay-1', '3 clients × 4 rounds', 'after 7 shrinks', 'curl -sS -i --http1.1 -X &#39;POST&#39;', 'exchanges (2; also in findings.har)', '→ <b>closed</b>', 'sig-not-a-secret']) {
      expect(linear).toContain(s);
    }
    expect(articles[2]).toContain('<dt>reading</dt><dd><code>usage-stored-meaning</code></dd>');
    expect(articles[2]).toContain('<dt>cases</dt><dd>3</dd>');
  });

  it('draws a sequence\'s numbered steps, each with its own request', () => {
    const seq = html.split('<article').slice(1).find((a) => a.includes('commits.model-sequences'))!;
    const steps = /<ol class="steps">(.*?)<\/ol>/s.exec(seq)![1]!;
    const items = steps.split('<li>').slice(1);
    expect(items).toHaveLength(2);
    expect(items[0]).toContain('create 1 artifact(s) (pouch A)');
    expect(items[0]).toContain('/v1/pouches/p-4/operations');
    expect(items[1]).toContain('update on a stale base');
    expect(items[1]).toContain('/v1/pouches/p-5/operations');
    // The bytes a quoted argument cannot carry go through printf; the token is masked in every line.
    expect(items[1]).toContain('printf &#39;\\377\\376\\000A&#39; | curl');
    expect(seq).toContain('-H &#39;authorization: ***&#39;');
    expect(seq).toContain('# 1 earlier request(s) of this case omitted');
    // What the judgement compared, and the exchange it rests on, from the finding's fields.
    expect(seq).toContain('<dt>compared</dt><dd>status: expected 4xx, observed 200</dd>');
    expect(seq).toContain('<dt>evidence</dt><dd>rests on exchange #5</dd>');
    // A body that is not UTF-8 is shown as base64, said so.
    expect(seq).toContain('not UTF-8: shown as base64');
  });

  it('draws the non-linearizable history as an SVG timeline: a lane per client, bars from call to answer, the ambiguous op dashed', () => {
    const svg = /<svg[^>]*class="timeline"[\s\S]*?<\/svg>/.exec(html)![0];
    for (const c of ['client-1', 'client-2', 'client-3']) expect(svg).toContain(`class="client">${c}<`);
    const ops = [...svg.matchAll(/<g class="op( pending)?" data-op="(\d+)">/g)].map((m) => [m[2], Boolean(m[1])]);
    expect(ops).toEqual([['2', false], ['3', false], ['5', true]]);
    const bar = (id: number) => new RegExp(`data-op="${id}">[\\s\\S]*?<rect ([^>]*)/>`).exec(svg)![1]!;
    expect(bar(5)).toContain('stroke-dasharray');
    expect(bar(2)).not.toContain('stroke-dasharray');
    // Bars to scale: op 2 (100→130 ms) starts left of op 3 (105→128) and ends right of it.
    const geom = (id: number) => {
      const m = /x="([\d.]+)" y="\d+" width="([\d.]+)"/.exec(bar(id))!;
      return { x: Number(m[1]), end: Number(m[1]) + Number(m[2]) };
    };
    expect(geom(2).x).toBeLessThan(geom(3).x);
    expect(geom(2).end).toBeGreaterThan(geom(3).end);
    expect(svg).toContain('#2 update r0→r1: applied');
    expect(svg).toContain('#5 delete r1→r3: unknown (may or may not have applied)');
  });

  it('has the readings, coverage and load sections when the run had them, and none when it did not', () => {
    expect(html).toContain('<section id="readings">');
    expect(html).toContain('<td><code>conflict-status</code></td><td>409');
    expect(html).toContain('<section id="load"><h2>Load: commit-throughput');
    expect(html).toContain('aria-label="Latency by percentile"');
    expect(html).not.toContain('<section id="coverage">');
    const bare = toReportHtml(reportOf([]));
    expect(bare).not.toMatch(/<section id="(readings|coverage|load)">/);
    expect(toReportHtml(reportOf([], {}, { load: { error: 'no port' } }))).toContain('the load run failed: no port');
    const obs = REQUEST_CONSTRAINTS.slice(0, 3).map((c) => ({ constraint: c.id, side: 'reject' as const, variant: 'missing', result: 'observed' as const }));
    const covered = toReportHtml(reportOf([], { coverage: coverageTable(obs) }));
    const rows = /<table class="coverage">[\s\S]*?<\/table>/.exec(covered)![0].split('<tr data-gap').length - 1;
    expect(rows).toBe(REQUEST_CONSTRAINTS.length);
  });
});

describe('findings.har', () => {
  const report = reportOf(Object.values(findings));
  // biome-ignore lint/suspicious/noExplicitAny: HAR entries are read by the paths the HAR 1.2 schema (validated first) guarantees
  const har = JSON.parse(toHar(report)) as { log: { version: string; creator: { name: string }; pages: { id: string; title: string }[]; entries: Record<string, any>[] } };

  it('is valid HAR 1.2 (the har-schema package\'s JSON Schemas), one page per finding, every exchange an entry in send order', () => {
    expect(harValidator()(har)).toEqual([]);
    expect(har.log.version).toBe('1.2');
    expect(har.log.creator.name).toBe('pouchproof');
    expect(har.log.pages.map((p) => p.id)).toEqual(['finding-1', 'finding-2', 'finding-3']);
    expect(har.log.entries).toHaveLength(5);
    const times = har.log.entries.map((e) => e.startedDateTime as string);
    expect(times).toEqual([...times].sort());
    const first = har.log.entries[0]!;
    expect(first.request.queryString).toEqual([{ name: 'trace', value: '1' }]);
    expect(first.request.postData.mimeType).toBe('application/json');
    expect(first.timings).toMatchObject({ wait: 2.5, receive: 0.75 });
    // No response: HAR's status 0, with the reason.
    const dropped = har.log.entries.find((e) => e._pouchproof.exchange === 2)!;
    expect(dropped.response).toMatchObject({ status: 0, _error: 'connection reset' });
    // A body that is not UTF-8: base64, said so.
    expect(har.log.entries.find((e) => e._pouchproof.exchange === 5)!.request.postData.comment).toMatch(/base64/);
  });

  it('a run without findings gives an empty, valid archive', () => {
    const empty = JSON.parse(toHar(reportOf([]))) as { log: { entries: unknown[]; pages: unknown[] } };
    expect(harValidator()(empty)).toEqual([]);
    expect([empty.log.entries.length, empty.log.pages.length]).toEqual([0, 0]);
  });

  it('the validator is not blind: a broken entry fails it', () => {
    const broken = structuredClone(har);
    broken.log.entries[0]!.startedDateTime = 'yesterday';
    delete broken.log.entries[1]!.response.status;
    expect(harValidator()(broken).length).toBeGreaterThanOrEqual(2);
  });

  it('masks secrets from the profile (tokens, private key material) and keeps what is not a secret (the signature)', () => {
    const files = reportFiles(report);
    for (const name of ['report.html', 'findings.har', 'report.json']) {
      expect(files[name]).not.toContain(TOKEN.split(' ')[1]);
      expect(files[name]).not.toContain(JWK_D);
    }
    const entry = har.log.entries[0]!;
    expect(entry.request.headers).toContainEqual({ name: 'authorization', value: '***' });
    expect(entry.request.headers).toContainEqual({ name: 'service-signature', value: 'sig-not-a-secret' });
    expect(entry.request.postData.text).toContain('***');
    expect(entry.response.content.text).toContain('***');
  });
});
