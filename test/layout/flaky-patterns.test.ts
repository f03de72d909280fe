/**
 * No test hides behind a skip (but the tool guard) or leans on a fixed-millisecond bound
 * (test/layout/flaky-patterns.ts), and the detector catches each pattern it names: shown on small
 * sources written here, each with the near miss it must let pass.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../repo-paths.ts';
import { codeOnly, flakyPatterns, type PatternKind } from './flaky-patterns.ts';

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out.sort();
}

const kinds = (src: string): PatternKind[] => flakyPatterns(src).map((h) => h.kind);

describe('the test tree', () => {
  it('has no skip but the tool guard, and no fixed-millisecond upper bound on a time', () => {
    const files = sources(join(REPO_ROOT, 'test'));
    expect(files.length).toBeGreaterThan(100);
    const hits = files.flatMap((f) => flakyPatterns(readFileSync(f, 'utf8')).map((h) => `${relative(REPO_ROOT, f).split(sep).join('/')}:${h.line} ${h.kind}: ${h.text}`));
    expect(hits).toEqual([]);
  });

  it('keeps its tool guards, the one skip allowed (so the rule above has something to let pass)', () => {
    const guarded = ['test/report/html-browser.test.ts', 'test/target/need-curl.ts'].map((f) => readFileSync(join(REPO_ROOT, f), 'utf8'));
    for (const src of guarded) {
      expect(src).toMatch(/\.skipIf\(\w+\.skip\)/);
      expect(kinds(src)).toEqual([]);
    }
  });
});

describe('the detector', () => {
  it.each([
    ['describe.skipIf', "describe.skipIf(!haveIndex)('with the properties', () => {});"],
    ['it.skipIf', "it.skipIf(process.platform === 'win32')('spawns', async () => {});"],
    ['test.skipIf', 'test.skipIf(!found)("x", () => {});'],
    ['it.runIf', 'it.runIf(found)("x", () => {});'],
    ['describe.skip', "describe.skip('later', () => {});"],
    ['it.skip', "it.skip('later', () => {});"],
    ['it.concurrent.skip', "it.concurrent.skip('later', () => {});"],
    ['describe.skip.each', "describe.skip.each([[1]])('%s', () => {});"],
    ['a test context skipped on a condition', "it('x', (ctx) => {\n  ctx.skip(!found);\n});"],
    ['a test context skipped under an if', "it('x', (context) => {\n  if (!found) context.skip();\n});"],
    ['a guard that is not a tool', "const X = { skip: !found };\nit.skipIf(X.skip)('x', () => {});"],
  ])('catches a skip: %s', (_what, src) => {
    expect(kinds(src)).toEqual(['skip']);
  });

  it('lets the tool guard pass, and only it', () => {
    const guard = "const CHROMIUM = tool({ names: ['chromium'], file: 'f', tests: 't', install: 'i' });\nit.skipIf(CHROMIUM.skip)('renders', async () => {});";
    expect(kinds(guard)).toEqual([]);
    expect(kinds(`${guard}\nit.skipIf(CHROMIUM.skip || slow)('renders', async () => {});`)).toEqual(['skip']);
  });

  it.each([
    ['an elapsed time', 'expect(elapsedMs).toBeLessThan(10_000);'],
    ['a clock difference', 'expect(Date.now() - t0).toBeLessThan(10_000);'],
    ['a performance.now() difference', 'expect(performance.now() - t0).toBeLessThanOrEqual(500);'],
    ['a duration, with a message', "expect(report.durationMs, 'the run').toBeLessThan(60_000);"],
    ['a sum of literals', 'expect(ex.timings.totalMs).toBeLessThan(300 + 5000);'],
    ['a latency in microseconds', 'expect(r.latency.p999).toBeLessThan(500 * 1000);'],
    ['what a step took', 'expect(tookMs).toBeLessThanOrEqual(2.5e3);'],
    ['a wall time', 'expect(totals.wallMs).toBeLessThan(8000);'],
    ['a constant named in milliseconds', 'expect(TIMEOUT_MS).toBeLessThan(1000);'],
    ['an expect over several lines', `expect(\n  r.elapsed,\n  \`took \${r.elapsed}\`,\n).toBeLessThan(\n  2000,\n);`],
  ])('catches a fixed-millisecond bound: %s', (_what, src) => {
    expect(kinds(src)).toEqual(['fixed-ms-bound']);
  });

  it.each([
    ['a bound from the same test\'s measurement', 'expect(tookMs).toBeLessThan(3 * timerMs);'],
    ['a lower bound', 'expect(r.latency.p99).toBeGreaterThanOrEqual(600 * 1000);'],
    ['a count', 'expect(d.requests).toBeLessThanOrEqual(60);'],
    ['a number not named like a time', 'expect(step.doublings[0]).toBeLessThan(2.5);'],
    ['a time in a message only', "expect(count, 'elapsedMs').toBeLessThan(10);"],
    ['a pattern in a comment', '// describe.skipIf(!x) and expect(elapsedMs).toBeLessThan(10) were here\nconst a = 1;'],
    ['a pattern in a block comment', '/** it.skip(\'x\') */\nconst a = 1;'],
    ['a pattern in a string', "const s = 'describe.skipIf(!x)(\"y\", f); expect(elapsedMs).toBeLessThan(1)';"],
    ['a pattern in a template', `const s = \`it.skip(\${name})\`;`],
    ['a pattern in a regular expression', 'const re = /describe\\.skipIf\\(/;'],
    ['a type, not a call', 'let withCurl: typeof it.skip;'],
    ['a method of something else', 'parser.skip(1);'],
  ])('lets pass %s', (_what, src) => {
    expect(kinds(src)).toEqual([]);
  });

  it('reports the line of each hit and blanks literals without moving a line', () => {
    const src = "const a = 'x\\'y';\n/* one\n two */\nit.skip('z', () => {});\nexpect(elapsedMs).toBeLessThan(5);";
    expect(codeOnly(src).split('\n')).toHaveLength(src.split('\n').length);
    expect(flakyPatterns(src).map((h) => [h.kind, h.line])).toEqual([['skip', 4], ['fixed-ms-bound', 5]]);
  });
});
