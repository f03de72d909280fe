/**
 * A folder's index.ts is its public face (docs/CONTRIBUTING.md, "Layout"): every index under src/
 * has an importer, and the package's code outside a folder with an index imports the folder through
 * it. A deep import stays only where the index would close a circle (the index reaches the
 * importer), or where loading the index is what the import avoids; each is listed here with why, and
 * a cycle exception fails once the circle is gone, so that it goes with it.
 */
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../repo-paths.ts';
import { moduleGraph, type ModuleGraph } from './module-graph.ts';

/** `importer → module`: through the index, the import would close a circle. */
const CYCLE_EXCEPTIONS: Readonly<Record<string, string>> = {
  'src/check/judge/environment.ts → src/check/run/prepare.ts': 'the runner (src/check/run/index.ts) judges through the environment diagnosis',
  'src/report/report-html.ts → src/report/load/charts.ts': 'the load reports write their files through src/report/write.ts, which renders report.html',
  'src/target/profile.ts → src/target/nemesis/grammar.ts': 'the nemesis proxy (src/target/nemesis/index.ts) reads the profile it is given',
};

/** Modules any of the package may import deep, with why. */
const DEEP_MODULES: Readonly<Record<string, string>> = {
  'src/reference/embedded.ts':
    "the embedded reference's starter, injected into the target layer: imported alone so that a run against a profile never loads the reference server (it loads server.ts lazily)",
};

const PACKAGE = ['src', 'properties', 'scenarios'];
const { graph } = moduleGraph(REPO_ROOT, PACKAGE);
const folderOf = (m: string): string => m.slice(0, m.lastIndexOf('/') + 1);
/** The indexes of folders under src/; src/index.ts is the package's entry (package.json's `main`), not a folder's face. */
const folderIndexes = (g: ModuleGraph): string[] => [...g.keys()].filter((m) => m.startsWith('src/') && m.endsWith('/index.ts') && m !== 'src/index.ts');

/** The innermost folder with an index that holds `module` but not `importer` (undefined: none, or the import is of that index). */
export function owningIndex(indexes: readonly string[], importer: string, module: string): string | undefined {
  const holding = indexes.filter((i) => module.startsWith(folderOf(i)) && !importer.startsWith(folderOf(i)) && module !== i);
  return holding.sort((a, b) => b.length - a.length)[0];
}

function reaches(g: ModuleGraph, from: string, to: string): boolean {
  const seen = new Set([from]);
  const stack = [from];
  for (let m = stack.pop(); m !== undefined; m = stack.pop()) {
    if (m === to) return true;
    for (const n of g.get(m) ?? []) if (!seen.has(n)) stack.push(n), seen.add(n);
  }
  return false;
}

/** Imports that go around an index, as `importer → module`. */
export function deepImports(g: ModuleGraph): string[] {
  const indexes = folderIndexes(g);
  return [...g].flatMap(([from, tos]) => tos.filter((to) => owningIndex(indexes, from, to) !== undefined).map((to) => `${from} → ${to}`)).sort();
}

describe('the indexes of src/', () => {
  const indexes = folderIndexes(graph);

  it('each have an importer: no folder has an unused index', () => {
    expect(indexes.length).toBeGreaterThan(10);
    const imported = new Set([...graph.values()].flat());
    expect(indexes.filter((i) => !imported.has(i))).toEqual([]);
  });

  it('are how the package imports a folder from outside it, but for the deep imports listed with a reason', () => {
    const deep = deepImports(graph).filter((e) => !(e in CYCLE_EXCEPTIONS) && !(e.split(' → ')[1]! in DEEP_MODULES));
    expect(deep).toEqual([]);
  });

  it('keep each cycle exception only while its circle is there: the index reaches the importer', () => {
    for (const e of Object.keys(CYCLE_EXCEPTIONS)) {
      const [from, to] = e.split(' → ') as [string, string];
      expect(graph.get(from), e).toContain(to);
      expect(reaches(graph, owningIndex(indexes, from, to)!, from), `${e}: the index no longer reaches the importer; import through it and drop the exception`).toBe(true);
    }
    for (const m of Object.keys(DEEP_MODULES)) expect(graph.has(m), m).toBe(true);
  });
});

describe('the check itself', () => {
  const g = (edges: Record<string, string[]>): ModuleGraph => new Map(Object.entries(edges));

  it('flags an import around an index from outside its folder, and allows one through it, one inside the folder and one of a folder with no index', () => {
    const found = deepImports(
      g({
        'src/load/index.ts': ['src/load/launch.ts'],
        'src/load/launch.ts': ['src/load/engine/engine.ts'],
        'src/load/engine/engine.ts': [],
        'src/cli/load.ts': ['src/load/index.ts', 'src/load/engine/engine.ts', 'src/report/write.ts'],
        'src/report/write.ts': [],
        'src/index.ts': ['src/load/index.ts'],
      }),
    );
    expect(found).toEqual(['src/cli/load.ts → src/load/engine/engine.ts']);
  });

  it('names the innermost index that holds the module and not the importer', () => {
    const idx = ['src/check/run/index.ts', 'src/reference/index.ts', 'src/reference/handlers/index.ts'];
    expect(owningIndex(idx, 'src/reference/server.ts', 'src/reference/handlers/usage.ts')).toBe('src/reference/handlers/index.ts');
    expect(owningIndex(idx, 'src/cli/serve.ts', 'src/reference/handlers/usage.ts')).toBe('src/reference/handlers/index.ts');
    expect(owningIndex(idx, 'src/cli/serve.ts', 'src/reference/server.ts')).toBe('src/reference/index.ts');
    expect(owningIndex(idx, 'src/check/run/case-runner.ts', 'src/check/run/options.ts')).toBeUndefined();
  });
});
