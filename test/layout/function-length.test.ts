/**
 * The runner reads like fast-check's (issue 23): no function in the runner or the session layer runs
 * past 60 lines, so each named part stays one idea. Measured on the syntax tree, nested functions each
 * on their own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const MAX_LINES = 60;
const DIRS = ['src/check/run', 'src/session'];
/** The load engine, split as k6 splits its executors (issue 32): the shared run, each model, the schedule. */
const LOAD_ENGINE = ['engine', 'engine-options', 'engine-run', 'executor-open', 'executor-closed', 'pacer', 'stages', 'abort', 'prefetch', 'due-queue', 'warmup'].map((f) => `src/load/${f}.ts`);

function longFunctions(file: string, text = readFileSync(file, 'utf8')): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const long: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isConstructorDeclaration(n)) {
      const from = sf.getLineAndCharacterOfPosition(n.getStart()).line;
      const lines = sf.getLineAndCharacterOfPosition(n.getEnd()).line - from + 1;
      if (lines > MAX_LINES) long.push(`${file}:${from + 1} ${n.name?.getText(sf) ?? '(anonymous)'} is ${lines} lines`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return long;
}

describe(`no function of the runner or the session is longer than ${MAX_LINES} lines`, () => {
  it.each(DIRS)('%s', (dir) => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => join(dir, f));
    expect(files.length).toBeGreaterThan(0);
    expect(files.flatMap((f) => longFunctions(f))).toEqual([]);
  });

  it('src/load: the engine and its models', () => {
    expect(LOAD_ENGINE.flatMap((f) => longFunctions(f))).toEqual([]);
  });

  it('finds a long function when there is one', () => {
    const body = (n: number) => `export const g = async () => {\n${'  x();\n'.repeat(n)}};\n`;
    expect(longFunctions('x.ts', body(MAX_LINES - 2))).toEqual([]);
    expect(longFunctions('x.ts', body(MAX_LINES - 1))).toEqual([`x.ts:1 (anonymous) is ${MAX_LINES + 1} lines`]);
  });
});
