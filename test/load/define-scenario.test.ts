/**
 * Scenarios of one's own: defineScenario's checks of a declaration, the built-in scenarios made by
 * it too, loading a scenario file (each failure one line), and the mixes' weighted draws. The
 * example file run end to end, through workers and the library: test/load/example-scenario.test.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SCENARIO_NAMES, loadScenario, loadScenarioByName } from '../../scenarios/index.ts';
import { defineScenario, isScenario, ScenarioDefinitionError, type ScenarioDefinition } from '../../src/load/define.ts';
import { checkWeights, mixSources, weightedPick } from '../../src/load/mix.ts';
import { Rng } from '../../src/load/rng.ts';
import { resolveParams, type LoadRequest, type RequestSource } from '../../src/load/scenario.ts';
import { importScenario, isScenarioPath, scenarioFileUrl } from '../../src/load/scenario-file.ts';
import { REPO_ROOT } from '../repo-paths.ts';

const dir = mkdtempSync(join(tmpdir(), 'pouchproof-scenario-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

const minimal: ScenarioDefinition = {
  name: 'mine',
  description: 'a test scenario',
  params: [{ name: 'n', description: 'a count', default: 3, kind: 'int', min: 1, max: 10 }],
  createSource: () => ({ next: () => undefined, complete: () => ({ ok: true, units: 1 }) }),
};

describe('defineScenario', () => {
  it('returns a frozen, branded scenario whose parameters --param is checked against, one line each', () => {
    const s = defineScenario(minimal);
    expect(isScenario(s)).toBe(true);
    expect(isScenario({ ...minimal, unit: 'units', params: [] })).toBe(false);
    expect(Object.isFrozen(s)).toBe(true);
    expect(s.unit).toBe('units');
    expect(resolveParams(s, { n: '7' })).toEqual({ n: 7 });
    expect(() => resolveParams(s, { n: '11' })).toThrow(/^parameter n must be at most 10, got 11$/);
    expect(() => resolveParams(s, { m: '1' })).toThrow(/^scenario mine has no parameter "m"; it has: n$/);
  });

  it('refuses a declaration that could not run, naming what is wrong', () => {
    const bad: Array<[Partial<ScenarioDefinition>, RegExp]> = [
      [{ name: 'My Scenario' }, /bad scenario name "My Scenario"/],
      [{ params: [...minimal.params!, { name: 'n', description: '', default: 1, kind: 'int' }] }, /parameter "n" is declared twice/],
      [{ params: [{ name: 'n', description: '', default: 30, kind: 'int', max: 10 }] }, /a default breaks its own declaration: parameter n must be at most 10, got 30/],
      [{ params: [{ name: 'mode', description: '', default: 'c', kind: 'string', choices: ['a', 'b'] }] }, /parameter mode must be one of a, b, got "c"/],
      [{ params: [{ name: 'n', description: '', default: 1, kind: 'float' as never }] }, /kind "float"; kinds: int, number, string/],
      [{ params: [{ name: '1n', description: '', default: 1, kind: 'int' }] }, /bad parameter name "1n"/],
      [{ createSource: undefined as never }, /createSource must be a function/],
      [{ unit: 'bytes' as never }, /unit "bytes" is none of ops, rows, units/],
      [{ defaultConnections: 0 }, /defaultConnections must be a positive integer/],
    ];
    for (const [change, message] of bad) {
      const attempt = () => defineScenario({ ...minimal, ...change });
      expect(attempt).toThrow(ScenarioDefinitionError);
      expect(attempt).toThrow(message);
    }
  });

  it('made every built-in scenario (one mechanism for theirs and a user\'s)', async () => {
    for (const name of SCENARIO_NAMES) expect(isScenario((await loadScenarioByName(name)).scenario), name).toBe(true);
  });
});

describe('a scenario file', () => {
  it('is shown in docs/load.md as examples/mixed-commits.ts holds it, the tested file (its code, after its comment)', () => {
    const example = readFileSync(join(REPO_ROOT, 'examples/mixed-commits.ts'), 'utf8');
    const code = example.slice(example.indexOf('import {')).trim();
    expect(code).toMatch(/^import \{[^}]*defineScenario[^}]*\} from 'pouchproof';/);
    expect(readFileSync(join(REPO_ROOT, 'docs/load.md'), 'utf8')).toContain(code);
  });


  it('is a path or a script name; a bare word is a built-in scenario', () => {
    for (const s of ['./mine.ts', '../x/mine', '/abs/mine.js', 'examples/mixed-commits.ts', 'mine.mjs', 'mine.mts']) expect(isScenarioPath(s), s).toBe(true);
    for (const s of ['commit-throughput', 'mixed', 'nosuch']) expect(isScenarioPath(s), s).toBe(false);
  });

  it('that is missing, a folder, CommonJS, or TypeScript this Node cannot load is refused in one line before any import', () => {
    expect(() => scenarioFileUrl(join(dir, 'nope.ts'))).toThrow(/^scenario file .*nope\.ts does not exist$/);
    mkdirSync(join(dir, 'folder.js'));
    expect(() => scenarioFileUrl(join(dir, 'folder.js'))).toThrow(/is not a file$/);
    expect(() => scenarioFileUrl(file('old.cjs', 'module.exports = {};'))).toThrow(/a CommonJS file cannot be loaded/);
    const ts = file('typed.ts', 'export default 1;');
    expect(() => scenarioFileUrl(ts, false)).toThrow(new RegExp(`is TypeScript, which Node ${process.versions.node.replace(/\./g, '\\.')} cannot load .*compile it to \\.js`));
    const url = scenarioFileUrl(ts, true);
    expect(new URL(url).searchParams.has('pouchproof-scenario')).toBe(true);
    expect(url.startsWith(pathToFileURL(ts).href)).toBe(true);
  });

  it('without a scenario as its default export, or throwing at import, is one line naming the file', async () => {
    const none = file('none.mjs', 'export const scenario = { name: "x" };\n');
    await expect(loadScenario(none)).rejects.toThrow(/^scenario file .*none\.mjs has no scenario as its default export: write `export default defineScenario/);
    const plain = file('plain.mjs', 'export default { name: "x", createSource() {} };\n');
    await expect(loadScenario(plain)).rejects.toThrow(/has no scenario as its default export/);
    const boom = file('boom.mjs', 'throw new Error("no database\\nat line 2");\n');
    await expect(loadScenario(boom)).rejects.toThrow(/^scenario file .*boom\.mjs could not be imported: no database at line 2$/);
    await expect(loadScenario('nosuch')).rejects.toThrow(/^unknown scenario "nosuch"; scenarios: commit-throughput.*a file of your own/);
  });

  it('made by defineScenario in another copy of the module is still a scenario (the brand is a registered symbol)', async () => {
    const define = pathToFileURL(join(import.meta.dirname, '../../src/load/define.ts')).href;
    const ok = file('ok.mjs', `import { defineScenario } from ${JSON.stringify(define)};\nexport default defineScenario({ name: 'ok', description: '', createSource: () => ({}) });\n`);
    const s = await importScenario(pathToFileURL(ok).href, ok);
    expect(s.name).toBe('ok');
  });
});

/** A source that hands out numbered requests of one kind, `empty` after `limit` of them. */
function counting(kind: string, limit = Infinity): RequestSource & { completed: number } {
  let n = 0;
  const src = {
    completed: 0,
    next: (): LoadRequest | undefined => (n < limit ? { method: 'POST', path: '/', headers: {}, body: String(n++), kind } : undefined),
    complete: () => (src.completed++, { ok: true, units: 1 }),
    stats: () => ({ built: n }),
  };
  return src;
}

describe('mixes', () => {
  it('draw each part in its share of the weight, within a binomial tolerance of the draws made', () => {
    const draws = 20_000;
    const pick = weightedPick(new Rng(11), [90, 0, 10]);
    const counts = [0, 0, 0];
    for (let i = 0; i < draws; i++) counts[pick()]!++;
    expect(counts[1]).toBe(0);
    const p = 0.1;
    // 4.5 standard deviations: a correct draw fails this about once in 150,000 seeds.
    expect(Math.abs(counts[2]! - draws * p)).toBeLessThanOrEqual(4.5 * Math.sqrt(draws * p * (1 - p)));
    expect(() => checkWeights([0, 0])).toThrow(/at least one weight must be positive/);
    expect(() => checkWeights([1, -1], 'commit mix')).toThrow(/^commit mix: weight 2 must be a non-negative number, got -1$/);
  });

  it('send each answer back to the part its request came from, and fall through a part with nothing to send', () => {
    const a = counting('a', 2);
    const b = counting('b');
    const mix = mixSources(new Rng(3), [{ name: 'a', weight: 1000, source: a }, { name: 'b', weight: 1, source: b }]);
    const sent = Array.from({ length: 10 }, () => mix.next()!);
    expect(sent.filter((r) => r.kind === 'a')).toHaveLength(2);
    expect(sent.filter((r) => r.kind === 'b')).toHaveLength(8);
    for (const r of sent) mix.complete(r, { status: 200, body: '' });
    expect([a.completed, b.completed]).toEqual([2, 8]);
    expect(mix.stats!()).toEqual({ 'a.built': 2, 'b.built': 8 });
  });
});
