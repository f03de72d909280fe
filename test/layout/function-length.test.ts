/**
 * Every named part stays one idea (issues 23 and 32): no function in src/, properties/ or scenarios/
 * runs past 60 lines. Measured on the syntax tree, nested functions each on their own, so a long
 * callback inside a short function counts as long.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const MAX_LINES = 60;
const ROOTS = ['src', 'properties', 'scenarios'];

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourcesUnder(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

interface Measured {
  readonly functions: number;
  readonly long: string[];
}

function measure(file: string, text = readFileSync(file, 'utf8')): Measured {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const long: string[] = [];
  let functions = 0;
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isConstructorDeclaration(n)) {
      functions++;
      const from = sf.getLineAndCharacterOfPosition(n.getStart()).line;
      const lines = sf.getLineAndCharacterOfPosition(n.getEnd()).line - from + 1;
      if (lines > MAX_LINES) long.push(`${file}:${from + 1} ${n.name?.getText(sf) ?? '(anonymous)'} is ${lines} lines`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return { functions, long };
}

const longFunctions = (file: string, text?: string): string[] => measure(file, text).long;

describe(`no function in ${ROOTS.join('/, ')}/ is longer than ${MAX_LINES} lines`, () => {
  it.each(ROOTS)('%s', (root) => {
    const measured = sourcesUnder(root).map((f) => measure(f));
    // The walk reaches the tree: a root whose files went missing would pass with nothing measured.
    expect(measured.reduce((n, m) => n + m.functions, 0)).toBeGreaterThan(50);
    expect(measured.flatMap((m) => m.long)).toEqual([]);
  });

  it('finds a long function when there is one, nested ones on their own', () => {
    const body = (n: number) => `export const g = async () => {\n${'  x();\n'.repeat(n)}};\n`;
    expect(longFunctions('x.ts', body(MAX_LINES - 2))).toEqual([]);
    expect(longFunctions('x.ts', body(MAX_LINES - 1))).toEqual([`x.ts:1 (anonymous) is ${MAX_LINES + 1} lines`]);
    const nested = `function outer() {\n  const inner = () => {\n${'    x();\n'.repeat(MAX_LINES - 1)}  };\n}\n`;
    expect(longFunctions('y.ts', nested)).toEqual([`y.ts:1 outer is ${MAX_LINES + 3} lines`, `y.ts:2 (anonymous) is ${MAX_LINES + 1} lines`]);
  });
});
