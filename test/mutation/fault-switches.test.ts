/**
 * The Stryker ignorer of fault-switch plumbing (mutation/fault-switches.mjs): what it leaves out of
 * the mutation score must be exactly the code that runs only when a named fault (or an unnamed
 * behaviour) is on, and the text of error bodies; everything the correct reference runs stays mutated.
 * Parsed with the Babel parser Stryker uses (a dependency of @stryker-mutator/core), walked as Stryker walks it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from '@babel/parser';
import { describe, expect, it } from 'vitest';
import { strykerPlugins } from '../../mutation/fault-switches.mjs';

/** What the ignorer reads of a Babel path. */
interface PathLike {
  readonly node: Node;
  readonly parent: Node | undefined;
  readonly key: string | number;
  readonly listKey: string | undefined;
}
type Node = { readonly type: string; readonly start?: number | null; readonly end?: number | null } & Record<string, unknown>;

const ignorer = strykerPlugins[0].value;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string';

/** The source text of every outermost node the ignorer leaves out (Stryker skips an ignored node's subtree). */
function ignored(code: string): string[] {
  const out: string[] = [];
  const visit = (path: PathLike): void => {
    if (ignorer.shouldIgnore(path) !== undefined) {
      out.push(code.slice(path.node.start ?? 0, path.node.end ?? 0));
      return;
    }
    for (const [key, v] of Object.entries(path.node)) {
      if (key === 'loc' || key === 'extra') continue;
      if (isNode(v)) visit({ node: v, parent: path.node, key, listKey: undefined });
      if (!Array.isArray(v)) continue;
      for (const [i, c] of v.entries()) if (isNode(c)) visit({ node: c, parent: path.node, key: i, listKey: key });
    }
  };
  const file = parse(code, { sourceType: 'module', allowReturnOutsideFunction: true, plugins: ['typescript'] });
  visit({ node: file.program as unknown as Node, parent: undefined, key: 'program', listKey: undefined });
  return out;
}

describe('fault-switch ignorer', () => {
  it('leaves out a fault check and the branch only it runs, and keeps the correct branch', () => {
    const code = "if (faults.has('x')) { leak(); } else { check(); }";
    expect(ignored(code)).toEqual(["faults.has('x')", '{ leak(); }']);
  });

  it('leaves out the alternate of a negated check and the right side of F && x, F || x negated', () => {
    expect(ignored("if (!ctx.faults.has('x')) { check(); } else { leak(); }")).toEqual(["!ctx.faults.has('x')", '{ leak(); }']);
    expect(ignored("const a = faults.has('x') && leak();")).toEqual(["faults.has('x') && leak()"]);
    expect(ignored("const b = !faults.has('x') || check();")).toEqual(["!faults.has('x')", 'check()']);
  });

  it('reads LIST.some((f) => faults.has(f)) as a fault check, and what it guards as fault-only', () => {
    const code = 'if (SHORTCUTS.some((f) => faults.has(f)) && accepts({ header })) return;\nverify();';
    expect(ignored(code)).toEqual(['SHORTCUTS.some((f) => faults.has(f)) && accepts({ header })', 'return;']);
  });

  it('reads F || (G && x) as fault-only when both sides need a fault, and keeps F || x', () => {
    expect(ignored("if (faults.has('a') || (faults.has('b') && renames)) { await tick(); }")).toEqual(["faults.has('a') || (faults.has('b') && renames)", '{ await tick(); }']);
    expect(ignored("if (faults.has('a') || renames) { refuse(); }")).toEqual(["faults.has('a')"]);
  });

  it('keeps a .some over anything but a fault check, and a has() on another set', () => {
    expect(ignored('if (ids.some((i) => seen.has(i))) refuse();')).toEqual([]);
    expect(ignored("if (readings.has('x')) refuse();")).toEqual([]);
  });

  it('leaves out the code and message of an error body, not its status', () => {
    expect(ignored("throw new HttpError(403, 'invalid_signature', 'does not verify');")).toEqual(["'invalid_signature'", "'does not verify'"]);
    expect(ignored("throw unauthorized('no header');")).toEqual(["'no header'"]);
  });

  it('treats the unnamed behaviours as switches too', () => {
    expect(ignored("if (ctx.unnamed.has('deleted-is-final')) { refuse(); }")).toEqual(["ctx.unnamed.has('deleted-is-final')", '{ refuse(); }']);
  });
});

/**
 * `// Stryker disable all` … `// Stryker restore all` blocks do not nest: a block opened inside another
 * ends both at its `restore`, and the rest of the outer block is mutated as live code (validate.ts's
 * fault-only helpers were, until this test).
 */
describe('Stryker disable blocks in the reference', () => {
  it('never open a block inside another, and close every block they open', () => {
    const root = join(import.meta.dirname, '../../src/reference');
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const problems: string[] = [];
    for (const f of files) {
      let open: number | undefined;
      readFileSync(join(root, f), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/\/\/ Stryker disable all\b/.test(line)) {
            if (open !== undefined) problems.push(`${f}:${i + 1} opens a block inside the one opened at line ${open}`);
            open = i + 1;
          } else if (/\/\/ Stryker restore all\b/.test(line)) open = undefined;
        });
      if (open !== undefined) problems.push(`${f}:${open} opens a block it never closes`);
    }
    expect(files.length).toBeGreaterThan(5);
    expect(problems).toEqual([]);
  });
});
