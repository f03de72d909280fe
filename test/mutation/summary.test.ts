import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { matchEquivalent, mutantsOf, originalText, parseEquivalents, render, scoresOf, tally, type Report, type ReportMutant } from '../../mutation/summary.ts';

const SOURCE = ['const a = x > 1;', 'if (ok) {', '  go();', '}', "const s = 'name';"].join('\n');

const mutant = (id: string, status: ReportMutant['status'], start: [number, number], end: [number, number], mutatorName: string, replacement: string, extra: Partial<ReportMutant> = {}): ReportMutant => ({
  id,
  status,
  mutatorName,
  replacement,
  location: { start: { line: start[0], column: start[1] }, end: { line: end[0], column: end[1] } },
  ...extra,
});

const FILE = 'src/reference/x.ts';
const report = (...mutants: ReportMutant[]): Report => ({ files: { [FILE]: { source: SOURCE, mutants } } });

describe('mutation summary', () => {
  it('reads the original text of one-line and multi-line mutants (1-based lines and columns)', () => {
    expect(originalText(SOURCE, mutant('1', 'Killed', [1, 11], [1, 16], 'EqualityOperator', 'x >= 1'))).toBe('x > 1');
    expect(originalText(SOURCE, mutant('2', 'Killed', [2, 9], [4, 2], 'BlockStatement', '{}'))).toBe('{\n  go();\n}');
  });

  it('matches a judged equivalent by file, mutator and original text whatever the line, and by replacement when given', () => {
    const list = parseEquivalents(JSON.stringify([{ file: FILE, mutator: 'StringLiteral', original: "'name'", reason: 'a reading name' }]));
    const ms = mutantsOf(report(mutant('1', 'Survived', [5, 11], [5, 17], 'StringLiteral', '""')), undefined, list);
    expect(ms[0]!.equivalent?.reason).toBe('a reading name');
    expect(matchEquivalent(list, 'src/reference/y.ts', 'StringLiteral', "'name'", '""')).toBeUndefined();
    const narrow = parseEquivalents(JSON.stringify([{ file: FILE, mutator: 'ConditionalExpression', original: 'ok', replacement: 'true', reason: 'r' }]));
    expect(matchEquivalent(narrow, FILE, 'ConditionalExpression', 'ok', 'true')).toBeDefined();
    expect(matchEquivalent(narrow, FILE, 'ConditionalExpression', 'ok', 'false')).toBeUndefined();
  });

  it('lets the readings half kill what the default half left alive, never the other way round', () => {
    const first = report(
      mutant('1', 'NoCoverage', [2, 5], [2, 7], 'ConditionalExpression', 'true'),
      mutant('2', 'Survived', [1, 11], [1, 16], 'EqualityOperator', 'x >= 1'),
      mutant('3', 'Killed', [3, 3], [3, 7], 'BlockStatement', ''),
      mutant('4', 'Ignored', [3, 3], [3, 7], 'StringLiteral', ''),
      mutant('5', 'Survived', [5, 11], [5, 17], 'StringLiteral', '""', { static: true }),
    );
    const second = report(mutant('a', 'Killed', [2, 5], [2, 7], 'ConditionalExpression', 'true'), mutant('b', 'Survived', [3, 3], [3, 7], 'BlockStatement', ''));
    const ms = mutantsOf(first, second, []);
    expect(ms.map((m) => [m.line, m.status, m.byReadings])).toEqual([
      [1, 'Survived', false],
      [2, 'Killed', true],
      [3, 'Killed', false],
    ]);
    const t = tally(ms);
    expect(t).toMatchObject({ mutants: 3, killed: 2, survived: 1, noCoverage: 0, byReadings: 1 });
    expect(scoresOf(t).overall).toBeCloseTo(66.67, 1);
  });

  it('counts as survived, not uncovered, a mutant only the readings half reached and left alive', () => {
    const first = report(mutant('1', 'NoCoverage', [2, 5], [2, 7], 'ConditionalExpression', 'true'), mutant('2', 'NoCoverage', [1, 11], [1, 16], 'EqualityOperator', 'x >= 1'));
    const second = report(mutant('a', 'Survived', [2, 5], [2, 7], 'ConditionalExpression', 'true'), mutant('b', 'NoCoverage', [1, 11], [1, 16], 'EqualityOperator', 'x >= 1'));
    const list = parseEquivalents(JSON.stringify([{ file: FILE, mutator: 'ConditionalExpression', original: 'ok', reason: 'r' }]));
    const ms = mutantsOf(first, second, list);
    expect(ms.map((m) => [m.line, m.status, m.byReadings])).toEqual([
      [1, 'NoCoverage', false],
      [2, 'Survived', false],
    ]);
    expect(tally(ms)).toMatchObject({ survived: 1, noCoverage: 1, equivalent: 1, equivalentSurvived: 1 });
    expect(scoresOf(tally(ms)).coveredJudged).toBe(100);
  });

  it('shows apart the kills that rest only on findings load can cause', () => {
    const reason = (lines: string[]) => `findings:\n${lines.join('\n')}\n: expected [ 'x' ] to deeply equal []`;
    const ms = mutantsOf(
      report(
        mutant('1', 'Killed', [1, 11], [1, 16], 'EqualityOperator', 'x >= 1', { statusReason: reason(['transport p: no response within 10000 ms']) }),
        mutant('2', 'Killed', [2, 5], [2, 7], 'ConditionalExpression', 'true', { statusReason: reason(['transport p: no response', 'violation p: applied']) }),
        mutant('3', 'Killed', [3, 3], [3, 7], 'BlockStatement', '', { statusReason: reason(['p: stopped by its 150000 ms bound after 2 of 5 cases']) }),
      ),
      undefined,
      [],
    );
    expect(ms.map((m) => m.byStall)).toEqual([true, false, true]);
    expect(render(ms, [], false)).toContain('2 of the kills rest only on findings load could cause too');
  });

  it('scores overall, on covered code, and without the judged equivalents', () => {
    const s = scoresOf({ mutants: 10, killed: 6, timeout: 1, byReadings: 0, byStall: 0, survived: 2, noCoverage: 1, equivalent: 2, equivalentSurvived: 1, errors: 0 });
    expect(s.overall).toBeCloseTo(70);
    expect(s.covered).toBeCloseTo((7 / 9) * 100);
    expect(s.judged).toBeCloseTo((7 / 8) * 100);
    expect(s.coveredJudged).toBeCloseTo((7 / 8) * 100);
  });

  it('prints the score, a row per file, the survivors with file:line, and the equivalents apart', () => {
    const list = parseEquivalents(JSON.stringify([{ file: FILE, mutator: 'StringLiteral', original: "'name'", reason: 'a reading name' }, { file: FILE, mutator: 'BlockStatement', original: 'gone', reason: 'stale' }]));
    const text = render(mutantsOf(report(mutant('1', 'Survived', [1, 11], [1, 16], 'EqualityOperator', 'x >= 1'), mutant('2', 'Survived', [5, 11], [5, 17], 'StringLiteral', '""'), mutant('3', 'Killed', [2, 5], [2, 7], 'ConditionalExpression', 'false')), undefined, list), list, false);
    expect(text).toContain('Mutation score: 33.3 % overall, 33.3 % on covered code');
    expect(text).toContain('Not counting the 1 judged equivalent');
    expect(text).toMatch(/Surviving mutants \(1\):\n {2}src\/reference\/x\.ts:1 {2}survived {2}EqualityOperator {2}x > 1 {2}→ {2}x >= 1/);
    expect(text).toMatch(/Judged equivalent \(1\):\n.*x\.ts:5 .*a reading name/);
    expect(text).toContain('matched no surviving mutant (1');
    expect(text).toMatch(/^file +mutants/m);
  });

  it('names the entry at fault in a malformed equivalent.json', () => {
    expect(() => parseEquivalents('{}')).toThrow(/expected a list/);
    expect(() => parseEquivalents(JSON.stringify([{ file: 'f', mutator: 'm', original: 'o' }]))).toThrow(/entry 0: "reason"/);
  });
});

describe('mutation/equivalent.json, the judgements as committed', () => {
  const collapse = (s: string): string => s.replace(/\s+/g, ' ').trim();
  it('parses, names files of the reference, and each original text is still in its file', () => {
    const root = new URL('../../', import.meta.url);
    const list = parseEquivalents(readFileSync(new URL('mutation/equivalent.json', root), 'utf8'));
    expect(list.length).toBeGreaterThan(0);
    const stale = list.filter((e) => {
      const path = new URL(e.file, root);
      return !e.file.startsWith('src/reference/') || !existsSync(path) || !collapse(readFileSync(path, 'utf8')).includes(collapse(e.original));
    });
    // A judgement whose code is gone matches nothing and only hides that it is stale.
    expect(stale.map((e) => `${e.file} ${e.mutator} ${e.original}`)).toEqual([]);
  });
});
