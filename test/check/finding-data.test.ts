/**
 * A finding as data (issue 32, "results apart from rendering"): the runner keeps what its judgement
 * compared (the status expected and observed), the exchanges it rests on and the case as bounded
 * JSON, never rendered text; the reports render the counterexample and the curl lines from those
 * fields, the profile's token masked. A curl line rendered from a recorded exchange is the line the
 * live exchange gave before, proxy, TLS files and bodies that cannot be quoted included.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccepted } from '../../src/check/judge/judge.ts';
import { defineProperty, type Property } from '../../src/check/property.ts';
import { boundedValue, counterexampleText, runProperties } from '../../src/check/run/index.ts';
import { curlLine, curlLines } from '../../src/report/curl-lines.ts';
import { recordExchange } from '../../src/check/run/exchange-record.ts';
import { clip } from '../../src/check/run/render.ts';
import type { Exchange } from '../../src/target/client.ts';
import { parseProfile } from '../../src/target/profile.ts';
import { startReference } from '../../src/reference/index.ts';
import USAGE from '../../properties/usage.ts';
import { toCurl } from '../../src/target/curl.ts';
import { redact } from '../../src/target/redact.ts';
import { buildReport, REPORT_SCHEMA_ID, ReportSchema } from '../../src/report/report-json.ts';
import { SECRET, startStandIn, standInProfile, type StandIn } from './stand-in.ts';

const TOKEN = SECRET.split(' ')[1]!;

let srv: StandIn;
beforeAll(async () => {
  // Values from 37 on are refused with a 400.
  srv = await startStandIn((v) => (v >= 37 ? 'reject' : 'ok'));
});
afterAll(async () => {
  await srv.close();
});

/** Every value must be accepted, sent with the browser's token. */
const accepted = defineProperty<number>({
  id: 'synthetic.accepted',
  section: '4.3',
  invariant: 'every value is accepted',
  assumptions: [],
  needs: ['browser'],
  arbitrary: () => fc.integer({ min: 0, max: 800 }),
  async check(ctx, n) {
    const ex = await ctx.call({ endpoint: 'reportUsage', params: { sourceId: ctx.sourceId() }, body: { rows: [] }, as: { member: 'browser' }, headers: { 'x-value': String(n) } });
    return expectAccepted(ex);
  },
}) as Property;

describe('a finding built by the runner', () => {
  it('carries the status expected and observed, the exchange it rests on and the shrunk case as data; curl lines are rendered from its exchanges, the token masked', async () => {
    const run = await runProperties(standInProfile(srv.url, true), [accepted], { seed: 7, runs: 40 });
    const f = run.results[0]!.findings.find((x) => x.kind === 'violation')!;
    expect(f, JSON.stringify(run.results[0]!.findings.map((x) => x.message))).toBeDefined();
    expect(f.mismatch).toEqual({ subject: 'status', expected: '2xx', observed: 400 });
    const last = f.exchanges!.at(-1)!;
    expect(f.exchangeIds).toEqual([last.id]);
    expect(last.response?.status).toBe(400);
    expect(f.input).toBe(37);
    expect(counterexampleText(f)).toBe('37');
    expect(f).not.toHaveProperty('curl');
    expect(f).not.toHaveProperty('counterexample');
    expect(JSON.stringify(f)).not.toContain(TOKEN);

    const curl = curlLines(f);
    expect(curl.at(-1)).toMatch(/^# exchange #\d+ \(reportUsage\); values shown as \*\*\* are secrets from the profile/);
    expect(curl.at(-1)).toContain("-H 'authorization: ***'");
    expect(curl.at(-1)).toContain("-H 'x-value: 37'");
    expect(curl.join('\n')).not.toContain(TOKEN);

    // report.json keeps the fields as data, and writes the counterexample and curl lines rendered from them.
    const report = buildReport(run, { version: '0.0.0-test', targetName: 'stand-in', embedded: false, runs: 40, assumptions: {}, secrets: [SECRET] });
    expect(report.schema).toBe(REPORT_SCHEMA_ID);
    expect(ReportSchema.safeParse(JSON.parse(JSON.stringify(report))).error?.issues ?? []).toEqual([]);
    const written = report.properties[0]!.findings.find((x) => x.kind === 'violation')!;
    expect(written).toMatchObject({ mismatch: f.mismatch, exchangeIds: f.exchangeIds, input: 37, counterexample: '37', curl });
  });
});

describe('a case as data', () => {
  it('is JSON with long strings and arrays abbreviated, bounded as a whole, its secrets masked', () => {
    const input = { envelope: 'A'.repeat(699_051), blob_ids: Array.from({ length: 2000 }, (_, i) => String(i)), note: `sent with ${TOKEN}`, n: 10n, bytes: new Uint8Array(3) };
    const kept = boundedValue(input, [TOKEN]);
    const text = JSON.stringify(kept);
    expect(text).toContain('(699051 chars)');
    expect(text).toContain('…(2000 items)');
    expect(kept).toMatchObject({ note: 'sent with ***', n: '10n', bytes: '<3 bytes>' });
    const wide = boundedValue(Array.from({ length: 12 }, (_, i) => Object.fromEntries(Array.from({ length: 200 }, (_, j) => [`field${j}`, `${i}-${j}-${'x'.repeat(90)}`]))));
    expect(JSON.stringify(wide).length).toBeLessThan(4_500);
    expect(JSON.stringify(wide)).toContain('more fields');
  });
});

describe('curl lines rendered from a recorded exchange', () => {
  const secrets = [SECRET, 'user:pw'];
  const exchange = (id: number, body: Uint8Array): Exchange => ({
    id,
    endpoint: 'commitOperations',
    request: { method: 'POST', url: `https://10.0.0.9:8443/v1/pouches/p-${id}/operations`, headers: { authorization: SECRET, 'content-type': 'application/json', 'content-length': String(body.byteLength) }, body },
    route: {
      proxy: { url: 'http://user:pw@proxy.internal:3128', from: 'profile' },
      tls: { origins: { ca: { kind: 'file', path: '/etc/pouch/ca.pem' }, key: { kind: 'env', name: 'POUCH_KEY' } }, servername: 'api.example', minVersion: 'TLSv1.3', passphrase: true },
    },
    response: { status: 200, headers: {}, body: '{}', truncated: false },
    verdict: 'accepted',
    reason: '200',
    timings: { startedAt: Date.parse('2026-01-01T00:00:00Z'), totalMs: 2 },
  });
  // What the runner stored before issue 32: the live exchange's line, masked and clipped.
  const before = (ex: Exchange): string => clip(redact(toCurl(ex, secrets, { maxBodyBytes: 8_000 }), secrets), 8_000);

  it('is the line the live exchange gave: proxy masked, TLS files by path, the token masked, bytes through printf, a large body from a file', () => {
    const bodies = [new Uint8Array(Buffer.from(`{"note":"${SECRET}"}`)), new Uint8Array([0xff, 0x00, 0x27, 0x41]), new Uint8Array(Buffer.from(`{"envelope":"${'A'.repeat(20_000)}"}`))];
    for (const [i, body] of bodies.entries()) {
      const ex = exchange(i + 1, body);
      const line = curlLine(recordExchange(ex, secrets));
      expect(line).toBe(before(ex));
      expect(line).not.toContain('s3cr3t');
      expect(line).toContain("--proxy 'http://***@proxy.internal:3128'");
    }
  });
});

describe('a field judged by value', () => {
  it('usage.idempotent against a merge that adds up: the stored expected and observed, as numbers', async () => {
    const ref = await startReference({ port: 0, faults: ['usage-summed'] });
    try {
      const prop = USAGE.find((p) => p.id === 'usage.idempotent')!;
      const run = await runProperties(parseProfile(ref.profile), [prop], { seed: 3, runs: 5, embedded: true });
      const f = run.results[0]!.findings.find((x) => x.kind === 'violation')!;
      expect(f, JSON.stringify(run.results[0]!.findings.map((x) => x.message))).toBeDefined();
      expect(f.mismatch?.subject).toBe('data.stored');
      expect(typeof f.mismatch?.expected).toBe('number');
      expect(typeof f.mismatch?.observed).toBe('number');
      expect(f.mismatch?.observed).not.toBe(f.mismatch?.expected);
    } finally {
      await ref.close();
    }
  });
});
