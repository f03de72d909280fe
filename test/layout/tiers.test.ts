/**
 * The test tiers (docs/CONTRIBUTING.md, "Tests"): every test file under test/ is in exactly one of vitest's two
 * projects, read off vitest.config.ts's include and exclude globs, and every named fault of the
 * reference keeps a killer in the fast tier, or is killed in the slow tier by a load check or the
 * cost probe.
 *
 * The slow tier's files over ~20 s were chosen from a whole run of the suite with the JSON reporter
 * (one worker, 2 cores, load average 6–8 from other jobs; seconds of test time per file): the zoo
 * (zoo-3 223, zoo-2 151, zoo-1 112, zoo-histories 27), the kill matrix (mutants 205, mutants-readings
 * 42), performance 92, the CLI end to end (cli 32, fail-on 30, cannot-vouch 24, target-down 22),
 * check/target-down 22, check/coverage 22; properties/requests (20 alone, 31 beside another file)
 * was split (requests, boundaries, coverage-killers) and stays fast. After main's session layer and
 * minimal pairs, in the fast tier two at a time (load average 4–9): precision/verdicts 125 (to the
 * slow tier; its faults got fast killers in the property files), requests 51 (then split again),
 * boundaries 27, reference/faults 20, properties/sequences 19, reference/fuzz 18. The rest of the
 * slow tier is slow by kind (load windows, spawned processes), whatever it took; so is
 * independent/correct (the whole suite against test/independent/'s server in a child process: 25 s alone).
 * zoo-nemesis (the zoo's 33 cases that switch a reading the usage, commit and race properties read,
 * and 9 faults of the kill matrix, each once under the nemesis): 63 s of test time alone at load
 * average 11–13, the slow tier's growth for the nemesis.
 *
 * Issue 32's CI halving (vitest's recorded durations, load average 5–15, seconds per file): unnamed 266,
 * zoo-2 306, zoo-1 208, zoo-3 170, verdicts 153, mutants 188, mutants-unnamed 68, mutants-readings 60,
 * then pack 26 and the CLI files 13–26 (LONGEST_FIRST in vitest.config.ts hands out the first nine first).
 * On one seed in CI, eight zoo tests took 126 s where they took 192 s on two (load 13); a clean run of
 * the kill matrix's correct reference without coverage takes ~3/4 of the one with it (48 s against 66 s
 * at load 15), and CI now makes two of them where it made five.
 *
 * Its second pass (the last green CI run, seconds of test time per file, load ~5: mutants 108, zoo-2 97,
 * zoo-1 90, zoo-3 83, side-by-side 70, performance 64 in the timed group, unnamed 62, mutants-unnamed 60,
 * verdicts 56, check/target-down 56, wrong-guess 55, mutants-readings 53, zoo-nemesis 45, largest-body 30,
 * bounded-memory 26), each changed file measured alone before and after, back to back (load 7–15):
 * mutants 154 → 151 (its second clean seed ~10 s in a split run of 143 s: the fault column ~95, the load
 * column and its clean checks ~38); check/target-down's tiny-budget suite 19.6 s on three seeds → 2.6 s
 * on one (17 s a seed in CI, 1–7 s here: where the budget cuts is the clock's); side-by-side 162 → 117,
 * most of it the 51-op counterexample of ops-limit-off-by-one shrunk twice (90 s), now a key_gen of zero;
 * performance's budget test (25 s whatever the load: the probe's 20 s run out) left the timed group for
 * the slow tier (cost-budget.test.ts: 25 s), performance 187 → 161 (load 15; 64 → ~39 in CI's terms);
 * then, given a 3 s budget of its own (the same path, ended sooner), the fast tier (~3 s).
 * LONGEST_FIRST is the order of these figures.
 *
 * precision/wrong-guess (issue 29: every reading some violation judgement declares it does not read, each
 * alternative guessed wrong, 39 runs of the properties it exposes) took 92–104 s in CI. Its runs are now
 * the zoo's third run of each single-reading case (test/precision/guesses.ts), only the exposed properties
 * that consulted the guessed reading or did not end the not-told run clean: 161 of 988 property runs. In a
 * scratch check of all 38 guesses, every property left out had the same status and findings guessed as
 * not told (one ran one request more: which property fills the shared diagnosis first). The three zoo
 * files, quiet machine: 214 s with it, where they and wrong-guess took 284 s in CI.
 *
 * Issue 32 item 7 (CI in half the time): the zoo's told run of a case holds only the properties its readings
 * can reach (test/precision/zoo.ts `toldProperties`, `runAgain`). Before, zoo-1's told tests took 75 s of its 154 s
 * (load 4–5). In one process, back to back on five cases (load ~4): not told 33.7 s, told with every
 * property 33.3 s, told with those reached 4.8 s (1, 1, 0, 7 and 1 of the 37). In a scratch check of 11 more
 * cases the told run of every property skipped matched its not-told result (status, cases, requests,
 * findings). After, at load 6–8 beside another CI run and the scratch checks: zoo-1 147 s; zoo-2 171 and zoo-3
 * 167 side by side: the load, not the change, set those (the in-process figures are the like-for-like ones).
 * isolate: false for the fast and slow tiers (vitest.config.ts): a worker runs its files in one module graph,
 * so a file no longer imports the tree again nor warms V8 again. The fast tier, back to back on a quiet
 * machine: 138 s isolated (import 65 s, tests 182 s), 89 and 90 s not (import 16 s, tests 161 s). An earlier
 * try ended one run after 83 s with no summary: its workers had been killed from outside.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, matchesGlob, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import config, { LONGEST_FIRST, SLOW_TIER, TIMED_TIER } from '../../vitest.config.ts';
import { sequencerFor } from '../sequencer.ts';
import { FAULTS } from '../../src/reference/fault-catalogue.ts';
import { REPO_ROOT } from '../repo-paths.ts';
import { COST_FAULTS } from '../check/cost-probe-apart.ts';

interface Tier {
  readonly name: string;
  readonly include: readonly string[];
  readonly exclude: readonly string[];
}

function tiersOf(): Tier[] {
  const projects = (config.test?.projects ?? []) as { test?: { name?: unknown; include?: string[]; exclude?: string[] } }[];
  return projects.map((p) => ({ name: String(p.test?.name), include: p.test?.include ?? [], exclude: p.test?.exclude ?? [] }));
}

function testFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) testFiles(p, out);
    else if (name.endsWith('.test.ts')) out.push(relative(REPO_ROOT, p).split(sep).join('/'));
  }
  return out.sort();
}

const inTier = (t: Tier, file: string): boolean => t.include.some((g) => matchesGlob(file, g)) && !t.exclude.some((g) => matchesGlob(file, g));

const tiers = tiersOf();
const files = testFiles(join(REPO_ROOT, 'test'));
const fastFiles = files.filter((f) => inTier(tiers.find((t) => t.name === 'fast')!, f));

/**
 * Faults whose only killer is still the kill matrix in the slow tier (test/check/mutants.test.ts):
 * none. A fault added without a fast killer fails the test below; give it one (a line in the
 * property test file of its killer) rather than a place here.
 */
const SLOW_ONLY_FAULTS: readonly string[] = [];

describe('the test tiers', () => {
  it('are the fast and the slow project (its timed files apart, after the rest, one at a time), sharing the root options', () => {
    expect(tiers.map((t) => t.name)).toEqual(['fast', 'slow', 'slow-timed']);
    expect(config.test?.maxWorkers).toBe(3);
  });

  it('put every test file in exactly one tier', () => {
    expect(files.length).toBeGreaterThan(100);
    const misplaced = files.map((f) => ({ f, in: tiers.filter((t) => inTier(t, f)).map((t) => t.name) })).filter((x) => x.in.length !== 1);
    expect(misplaced.map((x) => `${x.f}: ${x.in.join(', ') || 'no tier'}`)).toEqual([]);
  });

  it('name no slow file that does not exist', () => {
    expect([...SLOW_TIER, ...TIMED_TIER].filter((g) => !files.some((f) => matchesGlob(f, g)))).toEqual([]);
    expect(fastFiles.length).toBeGreaterThan(files.length / 2);
  });

  it('run through the README\'s own commands (and CONTRIBUTING\'s table of them): npm test the type check, the lint and the fast tier, npm run test:full both tiers, and CI the latter', () => {
    const scripts = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    // The type check and the lint first, then the tiers.
    expect(scripts['test']).toMatch(/^tsc -p tsconfig\.json --noEmit && biome lint && vitest run --project fast$/);
    expect(scripts['test:full']).toMatch(/^tsc -p tsconfig\.json --noEmit && biome lint && vitest run$/);
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const contributing = readFileSync(join(REPO_ROOT, 'docs/CONTRIBUTING.md'), 'utf8');
    for (const command of ['npm test', 'npm run test:full', 'npm run test:slow']) {
      expect(readme, command).toContain(`\`${command}\``);
      expect(contributing, command).toContain(`| \`${command}\` |`);
    }
    const ci = readFileSync(join(REPO_ROOT, '.ci/run'), 'utf8').split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
    expect(ci.at(-1)).toBe('npm run test:full');
    expect(ci.join('\n')).toMatch(/chromium/);
    expect(ci.join('\n')).toMatch(/export POUCHPROOF_REQUIRE_TOOLS=1/);
  });

  it('keep a killer of every fault in the fast tier, or a load check or the cost probe in the slow one', () => {
    // A killer names its fault where it runs a property against it (test/reference/ only shows what the fault does).
    const text = fastFiles.filter((f) => !f.startsWith('test/reference/')).map((f) => readFileSync(join(REPO_ROOT, f), 'utf8'));
    const killedFast = (name: string): boolean => text.some((t) => t.includes(`'${name}'`));
    const slowCheck = (killers: readonly string[]): boolean => killers.some((k) => k.startsWith('load.') || k.startsWith('performance.'));
    const missing: string[] = FAULTS.filter((f) => !killedFast(f.name) && !slowCheck(f.expectedKillers)).map((f) => f.name);
    expect(missing.filter((f) => !SLOW_ONLY_FAULTS.includes(f))).toEqual([]);
    expect(SLOW_ONLY_FAULTS.filter((f) => !missing.includes(f)), 'a fault listed as slow-only has a fast killer now: remove it from SLOW_ONLY_FAULTS').toEqual([]);
  });

  it('kill each cost fault in the timed group, which alone judges latency (the slow files beside other workers leave them out)', () => {
    const timed = files.filter((f) => TIMED_TIER.some((g) => matchesGlob(f, g))).map((f) => readFileSync(join(REPO_ROOT, f), 'utf8'));
    expect(COST_FAULTS.length).toBeGreaterThan(0);
    expect(COST_FAULTS.map((f) => f.name).filter((name) => !timed.some((t) => t.includes(`'${name}'`)))).toEqual([]);
  });

  it('hand the workers the slow tier first, its longest files first, then the fast tier, and the timed group last', async () => {
    const slow = files.filter((f) => inTier(tiers.find((t) => t.name === 'slow')!, f));
    expect(LONGEST_FIRST.filter((f) => !slow.includes(f)), 'LONGEST_FIRST names slow files').toEqual([]);
    // vitest's own order (a fresh clone: no durations, larger files first) is what the sequencer starts from.
    const spec = (project: string, file: string, groupOrder = 0) => ({ project: { name: project, config: { root: REPO_ROOT, isolate: true, sequence: { groupOrder } } }, moduleId: join(REPO_ROOT, file) }) as unknown as TestSpecification;
    const ctx = { config: { root: REPO_ROOT }, cache: { getFileTestResults: () => undefined, getFileStats: (key: string) => ({ size: statSync(join(REPO_ROOT, key.slice(key.indexOf(':') + 1))).size }) } } as unknown as Vitest;
    const Sequencer = sequencerFor(LONGEST_FIRST, 'slow');
    const specs = [
      ...fastFiles.slice(0, 5).map((f) => spec('fast', f)),
      ...TIMED_TIER.map((f) => spec('slow-timed', f, 1)),
      ...[...slow].reverse().map((f) => spec('slow', f)),
    ];
    const order = (await new Sequencer(ctx).sort(specs)).map((s) => `${s.project.name}:${relative(REPO_ROOT, s.moduleId).split(sep).join('/')}`);
    expect(order.slice(0, LONGEST_FIRST.length)).toEqual(LONGEST_FIRST.map((f) => `slow:${f}`));
    expect(order.slice(LONGEST_FIRST.length, slow.length).every((k) => k.startsWith('slow:'))).toBe(true);
    expect(order.slice(slow.length, slow.length + 5).every((k) => k.startsWith('fast:'))).toBe(true);
    expect(order.slice(-TIMED_TIER.length)).toEqual(expect.arrayContaining(TIMED_TIER.map((f) => `slow-timed:${f}`)));
  });
});
