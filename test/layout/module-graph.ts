/**
 * The module graph of the sources, read off their import statements (static, `export … from`,
 * `import type` and literal `import()` alike, through TypeScript's own scanner, so an import inside a
 * string or a comment is never counted), and the two questions asked of it: which modules import
 * each other in a circle, and which import runs against the layering.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** Module → the modules it imports, as repository-relative paths with `/`. */
export type ModuleGraph = ReadonlyMap<string, readonly string[]>;

const SOURCE = /\.(ts|mts|mjs)$/;

function filesUnder(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) filesUnder(p, out);
    else if (SOURCE.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const posix = (p: string): string => p.split(sep).join('/');

/**
 * The graph of every source file under `dirs` (relative to `root`). Relative imports of another
 * source file are edges; packages, `node:` modules and JSON are not. `unresolved` lists relative
 * imports of a source file that does not exist, so that no edge is lost without a word.
 */
export function moduleGraph(root: string, dirs: readonly string[]): { graph: ModuleGraph; unresolved: string[] } {
  const graph = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const file of dirs.flatMap((d) => filesUnder(join(root, d)))) {
    const from = posix(relative(root, file));
    const edges: string[] = [];
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!fileName.startsWith('.') || !SOURCE.test(fileName)) continue;
      const target = resolve(dirname(file), fileName);
      try {
        statSync(target);
        edges.push(posix(relative(root, target)));
      } catch {
        unresolved.push(`${from} imports ${fileName}`);
      }
    }
    graph.set(from, edges);
  }
  return { graph, unresolved };
}

/** Every circle of imports: the strongly connected components of more than one module (Tarjan), and any module importing itself. */
export function cycles(graph: ModuleGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** One folder (or a few) of the layering: the modules whose path begins with one of `prefixes`. */
export interface Layer {
  readonly name: string;
  /** 0 at the ground; a module may import its own level and those below. */
  readonly level: number;
  readonly prefixes: readonly string[];
  /** When set, the only other layers (by name) this one may import, even among those below it. */
  readonly onlyImports?: readonly string[];
}

/**
 * Imports that break the layering, as `from → to (why)`: a module importing one of a higher level,
 * or a layer its `onlyImports` leaves out. A module in no layer is reported too, so that a new
 * folder is placed on purpose.
 */
export function layeringBreaks(graph: ModuleGraph, layers: readonly Layer[]): string[] {
  const layerOf = (m: string): Layer | undefined => layers.find((l) => l.prefixes.some((p) => m === p || m.startsWith(p)));
  const out: string[] = [];
  for (const [from, tos] of graph) {
    const a = layerOf(from);
    if (!a) {
      out.push(`${from} is in no layer (place its folder in the layering)`);
      continue;
    }
    for (const to of tos) {
      const b = layerOf(to);
      if (!b || a === b) continue;
      if (b.level > a.level) out.push(`${from} → ${to} (${a.name} imports ${b.name}, a higher layer)`);
      else if (a.onlyImports && !a.onlyImports.includes(b.name)) out.push(`${from} → ${to} (${a.name} may import only ${a.onlyImports.join(' and ')})`);
    }
  }
  return out.sort();
}
