/**
 * The shape of the sources: no import cycle in src/, properties/ or scenarios/, and the layering of
 * the developers' guide (docs/CONTRIBUTING.md, "Layout"), one direction only: `src/spec/` at the ground; `src/gen/`,
 * `src/crypto/`, `src/target/` and `src/reference/` above it (the target layer and the reference
 * use only spec and crypto: the reference reaches the target layer through an injected starter);
 * `src/check/` and `src/load/` above those; what runs the checks many times over, `src/discover/`,
 * `src/compare/` and `src/mutants/`, above src/check; `properties/`, `scenarios/` and `src/report/`
 * (with the load reports, `src/report/load/`) above them; the session (`src/session/`) over all of
 * those; the command, the library and the vitest entry last. Nothing lower imports anything higher.
 */
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../repo-paths.ts';
import { cycles, layeringBreaks, moduleGraph, type Layer, type ModuleGraph } from './module-graph.ts';

const LAYERS: readonly Layer[] = [
  { name: 'src/spec', level: 0, prefixes: ['src/spec/'] },
  { name: 'src/gen', level: 1, prefixes: ['src/gen/'] },
  { name: 'src/crypto', level: 1, prefixes: ['src/crypto/'] },
  { name: 'src/target', level: 1, prefixes: ['src/target/'], onlyImports: ['src/spec', 'src/crypto'] },
  { name: 'src/reference', level: 1, prefixes: ['src/reference/'], onlyImports: ['src/spec', 'src/crypto'] },
  { name: 'src/check', level: 2, prefixes: ['src/check/'] },
  { name: 'src/load', level: 2, prefixes: ['src/load/'] },
  { name: 'src/discover', level: 3, prefixes: ['src/discover/'] },
  { name: 'src/compare', level: 3, prefixes: ['src/compare/'] },
  { name: 'src/mutants', level: 3, prefixes: ['src/mutants/'] },
  { name: 'properties', level: 4, prefixes: ['properties/'] },
  { name: 'scenarios', level: 4, prefixes: ['scenarios/'] },
  { name: 'src/report', level: 4, prefixes: ['src/report/'] },
  { name: 'src/session', level: 5, prefixes: ['src/session/'] },
  { name: 'the command, the library and the vitest entry', level: 6, prefixes: ['src/cli/', 'src/api/', 'src/index.ts', 'src/vitest.ts'] },
];

/**
 * Cycles still to break, each with who breaks it. The test fails when one is gone, so that its
 * exception goes with it.
 */
const KNOWN_CYCLES: readonly (readonly string[])[] = [];

const { graph, unresolved } = moduleGraph(REPO_ROOT, ['src', 'properties', 'scenarios']);
const key = (c: readonly string[]): string => [...c].sort().join(' ↔ ');

describe('the module graph of src/, properties/ and scenarios/', () => {
  it('is read whole: every relative import names a file that exists', () => {
    for (const m of ['src/spec/limits.ts', 'src/reference/server.ts', 'src/load/worker-boot.mjs', 'properties/index.ts', 'scenarios/index.ts', 'src/cli/main.ts']) expect(graph.has(m), m).toBe(true);
    expect(graph.get('src/spec/index.ts')).toContain('src/spec/limits.ts');
    expect(unresolved).toEqual([]);
  });

  it('has no import cycle, beyond the known ones still to break', () => {
    const found = cycles(graph).map(key);
    const known = KNOWN_CYCLES.map(key);
    expect(found.filter((c) => !known.includes(c))).toEqual([]);
    expect(known.filter((c) => !found.includes(c)), 'a known cycle is gone: remove its exception from KNOWN_CYCLES').toEqual([]);
  });

  it('ships no test-only orchestration: nothing in the package (src/, properties/, scenarios/) imports test/ or bench/, and the readings zoo lives with its tests', () => {
    const intoTests = [...graph].flatMap(([from, to]) => to.filter((t) => /^(test|bench)\//.test(t)).map((t) => `${from} → ${t}`));
    expect(intoTests).toEqual([]);
    expect(graph.has('src/check/readings-zoo.ts')).toBe(false);
  });

  it('follows the layering: nothing lower imports anything higher, and the target layer and the reference use only spec and crypto', () => {
    expect(layeringBreaks(graph, LAYERS)).toEqual([]);
  });
});

describe('the checks themselves', () => {
  const g = (edges: Record<string, string[]>): ModuleGraph => new Map(Object.entries(edges));

  it('finds a cycle through three modules and one module importing itself, and none in a tree', () => {
    expect(cycles(g({ 'a.ts': ['b.ts'], 'b.ts': ['c.ts'], 'c.ts': ['a.ts'], 'd.ts': ['d.ts'], 'e.ts': ['a.ts'] }))).toEqual([['a.ts', 'b.ts', 'c.ts'], ['d.ts']]);
    expect(cycles(g({ 'a.ts': ['b.ts', 'c.ts'], 'b.ts': ['c.ts'], 'c.ts': [] }))).toEqual([]);
  });

  it('flags an import upward, one the reference or the target layer may not make, and a module in no layer; allows the same level and below', () => {
    const real = g({
      'src/spec/limits.ts': ['src/check/run/index.ts'],
      'src/reference/server.ts': ['src/target/client.ts', 'src/crypto/keys.ts', 'src/spec/index.ts'],
      'src/target/resolve.ts': ['src/reference/index.ts'],
      'src/check/property.ts': ['src/discover/index.ts'],
      'src/report/markdown.ts': ['src/mutants/index.ts', 'src/load/index.ts'],
      'src/cli/main.ts': ['src/api/run.ts', 'properties/index.ts'],
      'src/nowhere/x.ts': [],
    });
    expect(layeringBreaks(real, LAYERS)).toEqual([
      'src/check/property.ts → src/discover/index.ts (src/check imports src/discover, a higher layer)',
      'src/nowhere/x.ts is in no layer (place its folder in the layering)',
      'src/reference/server.ts → src/target/client.ts (src/reference may import only src/spec and src/crypto)',
      'src/spec/limits.ts → src/check/run/index.ts (src/spec imports src/check, a higher layer)',
      'src/target/resolve.ts → src/reference/index.ts (src/target may import only src/spec and src/crypto)',
    ]);
  });
});
