import fc from 'fast-check';
import { mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccepted, expectRejected, Notes } from '../../src/check/judge/judge.ts';
import { defineProperty, PASS, type Property } from '../../src/check/property.ts';
import { runProperties, type RunResult, runExitCode } from '../../src/check/run/index.ts';
import { ConsoleView, colorWanted } from '../../src/report/console.ts';
import { toJunit, xmlEscape } from '../../src/report/junit.ts';
import { buildReport, ReportSchema, type Report } from '../../src/report/report-json.ts';
import { loadHeadline, toSummaryMarkdown } from '../../src/report/summary-md.ts';
import { writeReports } from '../../src/report/write.ts';
import { SECRET, startStandIn, standInProfile, type StandIn } from '../check/stand-in.ts';

/**
 * A well-formedness check for the XML we write: balanced tags, quoted attributes, only the five
 * predefined entities. Not a general parser — enough to catch a broken writer.
 */
function assertWellFormedXml(xml: string): { tags: string[] } {
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const stack: string[] = [];
  const tags: string[] = [];
  let i = 0;
  while (i < body.length) {
    const lt = body.indexOf('<', i);
    const text = body.slice(i, lt === -1 ? body.length : lt);
    if (/&(?!(amp|lt|gt|quot|apos);)/.test(text) || text.includes('>')) throw new Error(`bad text: ${text.slice(0, 80)}`);
    if (lt === -1) break;
    const gt = body.indexOf('>', lt);
    if (gt === -1) throw new Error('unterminated tag');
    const tag = body.slice(lt + 1, gt);
    if (tag.startsWith('/')) {
      const name = tag.slice(1).trim();
      if (stack.pop() !== name) throw new Error(`mismatched </${name}>`);
    } else {
      const m = /^([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)$/.exec(tag);
      if (!m) throw new Error(`malformed tag <${tag.slice(0, 80)}>`);
      if (/&(?!(amp|lt|gt|quot|apos);)/.test(m[2]!)) throw new Error('bad entity in attribute');
      tags.push(m[1]!);
      if (!m[3]) stack.push(m[1]!);
    }
    i = gt + 1;
  }
  if (stack.length) throw new Error(`unclosed ${stack.join(',')}`);
  return { tags };
}

let srv: StandIn;
let root: string;
beforeAll(async () => {
  // Rejects with a body that echoes the Authorization header (a leaky server), for redaction.
  srv = await startStandIn((v) => (v >= 10 ? 'echo-auth' : 'ok'));
  root = await mkdtemp(join(tmpdir(), 'pouchproof-reports-'));
});
afterAll(async () => {
  await srv.close();
  await rm(root, { recursive: true, force: true });
});

const leaky = defineProperty<number>({
  id: 'synthetic.leaky',
  section: '4.3',
  invariant: 'accepted <always> & "quoted"',
  assumptions: [],
  needs: ['browser'],
  arbitrary: () => fc.integer({ min: 0, max: 100 }),
  async check(ctx, n) {
    const ex = await ctx.call({ endpoint: 'reportUsage', params: { sourceId: ctx.sourceId() }, body: { rows: [], note: `<&"'>${n}` }, as: { member: 'browser' }, headers: { 'x-value': String(n) } });
    return expectAccepted(ex);
  },
});
const mismatch = defineProperty<number>({
  id: 'synthetic.mismatch',
  section: '4.3',
  invariant: 'rejected',
  assumptions: ['usage-stored-meaning'],
  needs: [],
  arbitrary: () => fc.constant(1),
  // The reading is noted on the way and the case goes on to judge what every reading requires: judged, with a mismatch.
  async check(ctx) {
    const ex = await ctx.call({ endpoint: 'reportUsage', params: { sourceId: ctx.sourceId() }, body: { rows: [] }, as: 'anonymous' });
    const notes = new Notes();
    notes.add(expectRejected(ex, { blame: { assumption: 'usage-stored-meaning' } }));
    return notes.result(PASS);
  },
});
const skipped = defineProperty<number>({ ...mismatch, id: 'synthetic.skipped', needs: ['second-account'] });

function reportFor(run: RunResult, secrets: readonly string[]): Report {
  return buildReport(run, {
    version: '0.0.0-test', targetName: 'stand-in', embedded: false, runs: 10, assumptions: { 'usage-stored-meaning': 'rows-changed' },
    properties: [leaky, mismatch, skipped] as Property[], secrets,
  });
}

describe('reports', () => {
  it('writes schema-valid report.json, well-formed junit.xml and summary.md with no secret in any file', async () => {
    const profile = standInProfile(srv.url, true);
    expect(profile.secrets).toContain(SECRET);
    const run = await runProperties(profile, [leaky, mismatch, skipped] as Property[], { seed: 5, runs: 10 });
    expect(runExitCode(run)).toBe(1);
    const report = reportFor(run, profile.secrets);
    expect(ReportSchema.safeParse(report).error?.issues ?? []).toEqual([]);
    expect(report.totals).toMatchObject({ properties: 3, failed: 1, passed: 1, skipped: 1 });
    expect(report.totals.findings).toMatchObject({ violation: 1, assumption: 1, skipped: 1 });

    const written = await writeReports(root, report, profile.secrets);
    const files = await readdir(written.dir);
    expect(files.sort()).toEqual(['findings.har', 'junit.xml', 'report.html', 'report.json', 'summary.md']);
    const token = SECRET.split(' ')[1]!;
    for (const f of files) {
      const text = await readFile(join(written.dir, f), 'utf8');
      expect(text).not.toContain(token);
    }
    // The leaky body did reach the finding, masked.
    const json = JSON.parse(await readFile(join(written.dir, 'report.json'), 'utf8')) as Report;
    expect(ReportSchema.safeParse(json).success).toBe(true);
    const v = json.properties[0]!.findings.find((x) => x.kind === 'violation')!;
    expect(v.message).toContain('***');
    expect(v.counterexample).toBe('10');
    expect(v.curl!.join('\n')).toContain('***');

    const xml = await readFile(join(written.dir, 'junit.xml'), 'utf8');
    const { tags } = assertWellFormedXml(xml);
    expect(tags.filter((t) => t === 'testcase')).toHaveLength(3);
    expect(tags.filter((t) => t === 'failure')).toHaveLength(1);
    expect(tags.filter((t) => t === 'skipped')).toHaveLength(1);
    expect(tags.filter((t) => t === 'system-out')).toHaveLength(1); // the assumption mismatch, not a failure
    expect(xml).toContain('&lt;&amp;');
    // Every report names the version that wrote it: report.json's tool, a JUnit property, summary.md and report.html.
    expect(json.tool.version).toBe('0.0.0-test');
    expect(xml).toContain('<property name="pouchproof-version" value="0.0.0-test"/>');
    expect(await readFile(join(written.dir, 'report.html'), 'utf8')).toContain('pouchproof 0.0.0-test');

    const md = await readFile(join(written.dir, 'summary.md'), 'utf8');
    expect(md).toContain('### Violations, server errors and crashes');
    expect(md).toContain('### Assumption mismatches (reported, not failed)');
    expect(md.indexOf('Violations')).toBeLessThan(md.indexOf('Assumption mismatches ('));
    expect(md).toContain('`synthetic.skipped`');
    expect(md).toContain('· pouchproof 0.0.0-test');
    // Not the embedded reference: no line says it is.
    expect(md).not.toContain('embedded reference');

    expect(await readlink(join(root, 'latest'))).toBe(written.dir.split('/').pop());
    const again = await writeReports(root, report, profile.secrets);
    expect(again.dir).not.toBe(written.dir);
    expect(await readlink(join(root, 'latest'))).toBe(again.dir.split('/').pop());
  });

  it('an interrupted run still makes a valid partial report', async () => {
    const ac = new AbortController();
    const stopper = defineProperty<number>({
      ...mismatch, id: 'synthetic.stopper', arbitrary: () => fc.nat(),
      async check() { ac.abort(); return PASS; },
    });
    const profile = standInProfile(srv.url);
    const run = await runProperties(profile, [stopper, mismatch] as Property[], { seed: 1, runs: 50, signal: ac.signal });
    const report = reportFor(run, profile.secrets);
    const parsed = ReportSchema.safeParse(report);
    expect(parsed.success).toBe(true);
    expect(report.interrupted).toBe(true);
    expect(report.totals.interrupted).toBe(2);
    assertWellFormedXml(toJunit(report));
    expect(toSummaryMarkdown(report)).toContain('interrupted (partial report)');
  });

  it('carries a property pouchproof could not run through every report as an error, exit code 2', async () => {
    const unbuildable = defineProperty<number>({ ...mismatch, id: 'synthetic.unbuildable', arbitrary: () => { throw new Error('generator <missing>'); } });
    const profile = standInProfile(srv.url);
    const run = await runProperties(profile, [unbuildable, mismatch] as Property[], { seed: 1, runs: 3 });
    const report = reportFor(run, profile.secrets);
    expect(ReportSchema.safeParse(report).success).toBe(true);
    expect(report.exitCode).toBe(2);
    expect(report.totals).toMatchObject({ properties: 2, error: 1, passed: 1, failed: 0 });
    expect(report.totals.findings.error).toBe(1);
    expect(report.properties[0]).toMatchObject({ id: 'synthetic.unbuildable', status: 'error' });

    const xml = toJunit(report);
    const { tags } = assertWellFormedXml(xml);
    expect(tags.filter((t) => t === 'error')).toHaveLength(1);
    expect(tags).not.toContain('failure');
    expect(xml).toContain('errors="1"');
    expect(xml).toContain('generator &lt;missing&gt;');

    const md = toSummaryMarkdown(report);
    expect(md).toContain('## pouchproof: 1 property pouchproof could not run');
    expect(md).toContain('### Properties pouchproof could not run');
    expect(md).toContain('`synthetic.unbuildable` | 4.3 | ⚠️ error');

    let out = '';
    const view = new ConsoleView({ out: { write: (s: string) => (out += s), isTTY: false }, env: {} });
    view.line(view.resultLine(run.results[0]!));
    view.summary(report);
    expect(out).toMatch(/ERR\s+synthetic\.unbuildable .*generator <missing>/);
    expect(out).toContain('Properties pouchproof could not run');
    expect(out).toContain('1 property pouchproof could not run — 2 properties: 1 passed, 0 failed, 0 skipped, 1 not run (error)');
  });

  it('summary.md keeps a violation\'s drawing (a message\'s lines after the first, e.g. a history\'s timeline) verbatim in a fence', async () => {
    const profile = standInProfile(srv.url);
    const run = await runProperties(profile, [mismatch] as Property[], { seed: 1, runs: 1 });
    const report = reportFor(run, profile.secrets);
    const drawing = 'client-1 |[====]    | #1 update r0→r1: applied\nclient-2 |  [=====] | #2 update r0→r2: applied';
    const finding = { kind: 'violation' as const, property: 'synthetic.mismatch', section: '4.3', message: `two ops on one base | both applied:\n${drawing}` };
    const md = toSummaryMarkdown({ ...report, properties: [{ ...report.properties[0]!, status: 'failed', findings: [finding] }] });
    expect(md).toContain('two ops on one base \\| both applied:\n');
    expect(md).toContain(`\`\`\`\n${drawing}\n\`\`\``);
  });

  it('summarises the load figures of npm start defensively', () => {
    expect(loadHeadline({ scenario: 'commit-throughput', rates: { okPerSecond: 2667.4 }, totals: { sent: 33351 }, latency: { p50: 4771, p99: 19775 }, errorRate: 0 }))
      .toBe('commit-throughput, 2667 ok/s, 33351 requests, p50 4.8 ms, p99 19.8 ms, error rate 0.00%');
    expect(loadHeadline({ skipped: 'no load' })).toBe('load run skipped: no load');
    expect(loadHeadline(undefined)).toBeUndefined();
    expect(loadHeadline({ rates: 'x' })).toBe('load');
  });

  it('escapes what XML forbids', () => {
    expect(xmlEscape('a\u0000b<c>&"\'')).toBe('a\uFFFDb&lt;c&gt;&amp;&quot;&apos;');
    expect(() => assertWellFormedXml('<a><b></a></b>')).toThrow();
  });

  it('console: plain lines without a TTY, a progress bar and colour on one, none with NO_COLOR', async () => {
    expect(colorWanted(true, { NO_COLOR: '1' })).toBe(false);
    expect(colorWanted(false, {})).toBe(false);
    expect(colorWanted(true, { TERM: 'xterm' })).toBe(true);
    const profile = standInProfile(srv.url);
    const run = await runProperties(profile, [mismatch] as Property[], { seed: 1, runs: 3 });
    const capture = (tty: boolean, env: NodeJS.ProcessEnv) => {
      let out = '';
      const view = new ConsoleView({ out: { write: (s: string) => (out += s), isTTY: tty, columns: 120 }, env });
      view.onProgress({ type: 'property-start', id: 'synthetic.mismatch', section: '4.3', index: 0, total: 1 });
      view.onProgress({ type: 'case', id: 'synthetic.mismatch', cases: 1, runs: 3, requests: 1, elapsedMs: 5 });
      view.onProgress({ type: 'property-end', result: run.results[0]!, index: 0, total: 1, ended: 1 });
      view.summary(reportFor(run, []), '/tmp/x');
      return out;
    };
    const plain = capture(false, {});
    expect(plain).not.toContain('\x1b[');
    expect(plain).not.toContain('\r');
    expect(plain).toMatch(/ok\s+synthetic\.mismatch/);
    expect(plain).toContain('Assumption mismatches');
    const tty = capture(true, { TERM: 'xterm' });
    expect(tty).toContain('\r\x1b[K');
    expect(tty).toContain('[');
    expect(tty).toContain('\x1b[32m');
    const noColor = capture(true, { NO_COLOR: '1' });
    expect(noColor).not.toMatch(/\x1b\[\d+m/);
  });
});
