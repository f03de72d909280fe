/** The library entry (src/index.ts) and the vitest entry's failure text, in-process; the packed package is test/package/pack.test.ts. */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { properties, run, startReference, UsageError, type Reference } from '../../src/index.ts';
import type { PropertyResult, RecordedExchange } from '../../src/check/run/index.ts';
import { describeProperties, failureOf } from '../../src/vitest.ts';

let dir: string;
let ref: Reference;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pouchproof-api-'));
  ref = await startReference({ faults: ['usage-summed'] });
});
afterAll(async () => {
  await ref?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('run()', () => {
  it('resolves to the report, writes the report files only under reportDir, and prints nothing', async () => {
    const out = vi.spyOn(process.stdout, 'write');
    const err = vi.spyOn(process.stderr, 'write');
    const lines: string[] = [];
    try {
      const report = await run({ profile: ref.profile, only: ['usage.never-summed'], runs: 5, seed: 9, readings: 'defaults', reportDir: dir, log: (l) => lines.push(l) });
      expect(report.exitCode).toBe(1);
      expect(report.totals.findings.violation).toBeGreaterThan(0);
      expect(report.properties.map((p) => p.id)).toEqual(['usage.never-summed']);
      expect(out).not.toHaveBeenCalled();
      expect(err).not.toHaveBeenCalled();
      expect(lines.join('\n')).toContain('seed 9');
      const written = JSON.parse(await readFile(join(dir, 'latest/report.json'), 'utf8')) as { runId: string; exitCode: number };
      expect(written).toMatchObject({ runId: report.runId, exitCode: 1 });
      // The reference's bearer tokens are secrets: masked in what was written.
      const token = /Bearer ([^"\s]+)/.exec(JSON.stringify(ref.profileDocument))![1]!;
      expect(await readFile(join(dir, 'latest/report.json'), 'utf8')).not.toContain(token);
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  });

  it('bad options are rejected with one line, before any target is opened', async () => {
    await expect(run({ runs: 0 })).rejects.toThrow(UsageError);
    await expect(run({ only: ['no-such.*'] })).rejects.toThrow(/matches no property/);
    await expect(run({ profile: ref.profile, target: ref.url })).rejects.toThrow(/either profile or target/);
    await expect(run({ profile: join(dir, 'missing.json') })).rejects.toThrow(/cannot read profile/);
  });

  it('properties is the catalogue the CLI lists', () => {
    expect(properties.length).toBeGreaterThan(20);
    expect(new Set(properties.map((p) => p.id)).size).toBe(properties.length);
  });
});

/** One request as a finding recorded it. */
const SENT: RecordedExchange = {
  id: 1, endpoint: 'reportUsage', startedAt: '2026-01-01T00:00:00.000Z',
  request: { method: 'PUT', url: 'http://x/v1/usage/sources/ab', headers: { 'content-type': 'application/json' }, body: { text: '{"rows":1}', size: 10 } },
  response: { status: 400, headers: {}, body: { text: '', size: 0 }, truncated: false }, verdict: 'rejected', reason: '400', timings: { totalMs: 1 },
};

describe('pouchproof/vitest', () => {
  const result = (over: Partial<PropertyResult>): PropertyResult => ({ id: 'usage.never-summed', section: '4.3', status: 'passed', runs: 5, requests: 10, durationMs: 5, findings: [], ...over });

  it('a violation fails the test with its message, ground, counterexample, replay token, curl line and the seed', () => {
    const text = failureOf(result({ status: 'failed', findings: [{ kind: 'violation', property: 'usage.never-summed', section: '4.3', message: 'the row was summed', ground: '§4.3 "Rows are never added up."', input: { rows: 1 }, shrinks: 2, replay: 'abc_1', mismatch: { subject: 'status', expected: '2xx', observed: 400 }, exchangeIds: [1], exchanges: [SENT] }] }), [], 77);
    const parts = ['violation: usage.never-summed (§4.3)', 'the row was summed', 'ground: §4.3 "Rows are never added up."', 'status: expected 2xx, observed 400', 'counterexample (2 shrinks): {"rows":1}', 'replay: pouchproof replay abc_1', "curl -sS -i --http1.1 -X 'PUT' 'http://x/v1/usage/sources/ab'", '(seed 77)'];
    for (const part of parts) expect(text).toContain(part);
  });

  it('assumption and performance findings pass, unless failOn names performance; inconclusive never passes', () => {
    const perf = result({ findings: [{ kind: 'performance', property: 'p', section: '4.2', message: 'grows' }, { kind: 'assumption', property: 'p', section: '4.2', message: 'other reading' }] });
    expect(failureOf(perf, [], 1)).toBeUndefined();
    expect(failureOf(perf, ['performance'], 1)).toContain('performance: p (§4.2)');
    expect(failureOf(result({ status: 'inconclusive', inconclusive: 'no case completed' }), [], 1)).toContain('inconclusive: no case completed');
  });

  it('a selection that matches nothing is an error at registration', () => {
    expect(() => describeProperties({ select: ['no-such.*'] })).toThrow(/matches no property/);
    // The run's selection and stopping options, checked as the CLI checks its flags.
    expect(() => describeProperties({ select: ['usage.idempotent'], exclude: ['usage.*'] })).toThrow(/less exclude \["usage\.\*"\] matches no property/);
    expect(() => describeProperties({ select: ['usage.idempotent'], maxFailures: 0 })).toThrow(/max-failures must be an integer from 1/);
  });

  // The entry registering a real test in this suite: against the embedded reference, it passes.
  describeProperties({ name: 'describeProperties on the embedded reference', select: ['usage.idempotent'], runs: 3, seed: 2, readings: 'defaults' });
});
