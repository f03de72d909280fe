/**
 * The command line is typed from its builders (src/cli/command.ts): each handler reads its options
 * with the types yargs infers from the options its builder declared. A cast of argv would let a flag's
 * type drift from its declaration unseen, so none may come back: no `as` (or `<T>`) applied to argv or
 * to anything read off it, and no handler that takes its argv as `Record<string, unknown>`. Read
 * through TypeScript's own parser, so a cast in a string or a comment is never counted.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../repo-paths.ts';

/** The names a command's parsed options go by in src/cli. */
const ARGV_NAMES = ['argv', 'args'];

/** The identifier an expression is read off (`argv` of `(argv['x'] ?? []).map(f)`), if any. */
function rootOf(e: ts.Expression): ts.Identifier | undefined {
  for (;;) {
    if (ts.isIdentifier(e)) return e;
    if (ts.isParenthesizedExpression(e) || ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e) || ts.isNonNullExpression(e) || ts.isCallExpression(e)) e = e.expression;
    else if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) e = e.left;
    else return undefined;
  }
}

/** Names bound by destructuring argv (`const { seed, 'max-rate': maxRate } = argv`): read off argv as well. */
function destructured(source: ts.SourceFile, names: Set<string>): void {
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isObjectBindingPattern(node.name) && node.initializer) {
      const root = rootOf(node.initializer);
      if (root && names.has(root.text)) for (const el of node.name.elements) if (ts.isIdentifier(el.name)) names.add(el.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

/** The casts of argv, and the argv parameters typed `Record<string, unknown>`, in one source text: `file:line: code`. */
export function argvCasts(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const names = new Set(ARGV_NAMES);
  destructured(source, names);
  const found: string[] = [];
  const at = (node: ts.Node): string => `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${node.getText(source)}`;
  const visit = (node: ts.Node): void => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
      const root = rootOf(node.expression);
      if (root && names.has(root.text)) found.push(at(node));
    }
    if (ts.isParameter(node) && node.type && /^Record<\s*string\s*,\s*unknown\s*>$/.test(node.type.getText(source))) found.push(at(node));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourcesUnder(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sourcesUnder(p, out);
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}

describe('the command line (src/cli)', () => {
  const files = sourcesUnder(join(REPO_ROOT, 'src', 'cli')).map((p) => relative(REPO_ROOT, p).split(sep).join('/'));

  it('is read whole: the registry, the shared flags and every command', () => {
    for (const f of ['src/cli/main.ts', 'src/cli/command.ts', 'src/cli/args.ts', 'src/cli/commands/run.ts', 'src/cli/commands/load.ts', 'src/cli/commands/serve.ts']) expect(files).toContain(f);
    expect(files.filter((f) => f.startsWith('src/cli/commands/')).length).toBeGreaterThanOrEqual(13);
  });

  it('casts no argv: each handler reads its options as its builder typed them', () => {
    expect(files.flatMap((f) => argvCasts(f, readFileSync(join(REPO_ROOT, f), 'utf8')))).toEqual([]);
  });
});

describe('the check itself', () => {
  it('finds a cast of argv, of a flag read off it, of a name destructured from it, and an untyped handler', () => {
    const text = [
      "const a = argv['scenario'] as string;",
      'const b = (argv._ as unknown[]).map(String);',
      "const c = (argv['fault'] as string[]).flatMap((f) => f.split(','));",
      'const d = <number>argv.seed;',
      'const e = args as Record<string, unknown>;',
      "const f = (argv.only ?? []) as string[];",
      "const { rate, 'max-rate': maxRate } = argv;",
      'const g = maxRate as string;',
      'async function handle(argv: Record<string, unknown>): Promise<number> { return 0; }',
    ].join('\n');
    expect(argvCasts('x.ts', text).map((l) => l.replace(/^x\.ts:(\d+): .*$/, '$1'))).toEqual(['1', '2', '3', '4', '5', '6', '8', '9']);
  });

  it('leaves alone what is no cast of argv: an error, a value of another name, a cast in a string or a comment', () => {
    const text = [
      'const m = (e as Error).message;',
      'const n = JSON.parse(text) as unknown;',
      "const s = 'argv.seed as number';",
      '// argv.seed as number',
      'const t = argv.seed satisfies string | undefined;',
      'const u = argv.fault.map((f) => f.trim());',
    ].join('\n');
    expect(argvCasts('y.ts', text)).toEqual([]);
  });
});
