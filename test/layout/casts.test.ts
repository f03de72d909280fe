/**
 * Casts only where a type system cannot follow (issue 32, item 4): src/ and properties/ hold at most
 * MAX_AS type assertions (`x as T` or `<T>x`, not `as const`) and at most MAX_NON_NULL non-null
 * assertions (`x!`), and each one that is left says why on its own line or the line above. Counted on
 * the syntax tree, so `import { a as b }`, `export * as ns` and the words in comments and strings are
 * no cast. Types come from zod's `z.infer` and from narrowing; a ceiling only goes down.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Issue 32 started at 342 `as` and 396 `!`. What is left (docs/CONTRIBUTING.md, "Casts"): 45 `as` and
 * 39 `!`, every one saying why. Lower a ceiling whenever a change takes casts away.
 */
const MAX_AS = 45;
const MAX_NON_NULL = 39;
const ROOTS = ['src', 'properties'];

type CastKind = 'as' | 'non-null';

interface Cast {
  readonly kind: CastKind;
  /** 1-based. */
  readonly line: number;
  readonly text: string;
  /** A comment on the cast's line or on the line above it. */
  readonly reasoned: boolean;
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourcesUnder(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

const isAsConst = (type: ts.TypeNode): boolean => ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName) && type.typeName.text === 'const';

function castKind(n: ts.Node): CastKind | undefined {
  if ((ts.isAsExpression(n) || ts.isTypeAssertionExpression(n)) && !isAsConst(n.type)) return 'as';
  if (ts.isNonNullExpression(n)) return 'non-null';
  return undefined;
}

/** The 0-based lines on which a comment ends, or which a comment shares with code after it (trailing). */
function commentLines(sf: ts.SourceFile): Set<number> {
  const text = sf.getFullText();
  const lines = new Set<number>();
  const seen = new Set<number>();
  const note = (ranges: ts.CommentRange[] | undefined): void => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      lines.add(sf.getLineAndCharacterOfPosition(r.end).line);
    }
  };
  const visit = (n: ts.Node): void => {
    note(ts.getLeadingCommentRanges(text, n.getFullStart()));
    note(ts.getTrailingCommentRanges(text, n.getEnd()));
    // Tokens are children too (getChildren, not forEachChild), so a comment before a `)` or `}` is seen.
    for (const c of n.getChildren(sf)) visit(c);
  };
  visit(sf);
  return lines;
}

function castsIn(file: string, text = readFileSync(file, 'utf8')): Cast[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const commented = commentLines(sf);
  const out: Cast[] = [];
  const visit = (n: ts.Node): void => {
    const kind = castKind(n);
    if (kind !== undefined) {
      const line = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
      const reasoned = commented.has(line) || commented.has(line - 1) || commented.has(last);
      out.push({ kind, line: line + 1, text: n.getText(sf).replace(/\s+/g, ' ').slice(0, 80), reasoned });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

const all = ROOTS.flatMap((root) => sourcesUnder(root)).flatMap((file) => castsIn(file).map((c) => ({ ...c, file })));
const count = (kind: CastKind): number => all.filter((c) => c.kind === kind).length;

describe('casts in src/ and properties/', () => {
  it(`at most ${MAX_AS} \`as\` assertions (not \`as const\`) and ${MAX_NON_NULL} non-null \`!\``, () => {
    // The walk reaches the tree: a root whose files went missing would pass with nothing counted.
    expect(ROOTS.flatMap((root) => sourcesUnder(root)).length).toBeGreaterThan(100);
    expect(count('as')).toBeLessThanOrEqual(MAX_AS);
    expect(count('non-null')).toBeLessThanOrEqual(MAX_NON_NULL);
  });

  it('each with a reason: a comment on its line or the line above', () => {
    expect(all.filter((c) => !c.reasoned).map((c) => `${c.file}:${c.line} ${c.text}`)).toEqual([]);
  });

  it('are counted on the syntax tree: no renames, no `as const`, no words in comments or strings', () => {
    const src = [
      "import { a as b } from 'x';",
      "export * as ns from 'y';",
      'const k = [1] as const; // x as Y',
      "const s = 'y as Z!';",
      'const n = (v as number)!;',
      'const m = <string>w;',
      '',
      'const q = r!.s;',
    ].join('\n');
    expect(castsIn('x.ts', src).map((c) => [c.kind, c.line, c.reasoned])).toEqual([
      ['non-null', 5, false],
      ['as', 5, false],
      ['as', 6, false],
      ['non-null', 8, false],
    ]);
  });

  it('take a reason from a comment on the same line or the line above, not from one further up', () => {
    const src = ['// why', 'const a = b as C;', 'const d = e!; // why', '/* why */', '', 'const f = g!;'].join('\n');
    expect(castsIn('y.ts', src).map((c) => [c.line, c.reasoned])).toEqual([
      [2, true],
      [3, true],
      [6, false],
    ]);
  });
});
