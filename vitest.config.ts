import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { sequencerFor } from './test/sequencer.ts';

/**
 * The slow tier (docs/CONTRIBUTING.md, "Tests"): files that run the suite many times, judge timing or run the load
 * engine for a measured window, or run pouchproof as a process end to end, and any file that takes
 * more than ~20 s on two cores. Every other test file is in the fast tier, which `npm test` runs;
 * `npm run test:full` runs both. test/layout/tiers.test.ts checks that each file is in exactly one.
 */
export const SLOW_TIER = [
  // The suite many times: the readings zoo and the kill matrix.
  'test/precision/zoo*.test.ts',
  'test/check/mutants.test.ts',
  'test/check/mutants-readings.test.ts',
  'test/check/mutants-unnamed.test.ts',
  // The zoo's readings and a sample of the kill matrix once each under the nemesis (63 s at load 11-13).
  'test/precision/zoo-nemesis.test.ts',
  // The load engine for a measured window (against the reference or a local server).
  'test/load/scenarios.test.ts',
  'test/load/stall.test.ts',
  'test/load/capacity.test.ts',
  'test/load/bounded.test.ts',
  'test/load/contention.test.ts',
  'test/load/prebuild.test.ts',
  'test/load/open-model.test.ts',
  'test/load/shards-sim.test.ts',
  'test/load/cli.test.ts',
  'test/load/gates-cli.test.ts',
  'test/load/stages-abort.test.ts',
  'test/load/example-scenario.test.ts',
  // A real Prometheus scraping a load run's live metrics.
  'test/load/prometheus.test.ts',
  // pouchproof as a process: the CLI end to end, `serve`, the GitHub Action's script, the packed package.
  'test/cli/cli.test.ts',
  'test/cli/cannot-vouch.test.ts',
  'test/cli/target-down.test.ts',
  'test/cli/compare.test.ts',
  'test/cli/probe.test.ts',
  'test/cli/bounded-memory.test.ts',
  'test/reference/serve.test.ts',
  'test/load/k8s.test.ts',
  'test/ci/action.test.ts',
  'test/session/exit-agreement.test.ts',
  'test/package/pack.test.ts',
  // Over ~20 s on two cores (figures in test/layout/tiers.test.ts).
  'test/check/target-down.test.ts',
  'test/check/coverage.test.ts',
  'test/precision/verdicts.test.ts',
  'test/precision/relations.test.ts',
  'test/precision/unnamed.test.ts',
  // The whole suite eight times, side by side and one property at a time.
  'test/check/side-by-side.test.ts',
  // The largest commit (~35 MB) in every alternative reading: ~2 s each.
  'test/properties/largest-body.test.ts',
  // The whole suite against the independent server of test/independent/ (~30 s), in a child process.
  'test/independent/correct.test.ts',
];

/**
 * Slow files whose verdict is a cost measured by latency or CPU time (the cost probe): they run after
 * every other file, one at a time, so no other test worker shares the cores while they measure. Beside
 * a second worker the probe missed a quadratic fault in two of five fresh-clone CI runs (and, in the
 * fast tier, `quadratic-usage-rows` once after the probe read the reference's own CPU time).
 */
export const TIMED_TIER = [
  'test/properties/performance.test.ts',
  'test/properties/cost-killers.test.ts',
  'test/cli/fail-on.test.ts',
  'test/load/latency-killers.test.ts',
  'test/load/cost-curve.test.ts',
];

/**
 * The slow files handed to the workers first, longest first (test/sequencer.ts), by the figures in
 * test/layout/tiers.test.ts; the rest of the slow tier follows, then the fast tier. Paths, not globs.
 */
export const LONGEST_FIRST = [
  'test/check/mutants.test.ts',
  'test/precision/zoo-2.test.ts',
  'test/precision/zoo-1.test.ts',
  'test/precision/zoo-3.test.ts',
  'test/precision/unnamed.test.ts',
  'test/check/mutants-unnamed.test.ts',
  'test/precision/verdicts.test.ts',
  'test/check/mutants-readings.test.ts',
  'test/check/side-by-side.test.ts',
  'test/precision/zoo-nemesis.test.ts',
  'test/properties/largest-body.test.ts',
  'test/cli/bounded-memory.test.ts',
];

export default defineConfig({
  // A scenario file (examples/) imports the package by its name, as a user's does: in the test process
  // too it is the sources (Node's hooks do this for the CLI and the load workers: src/load/scenario-hooks.mjs).
  resolve: { alias: [{ find: /^pouchproof$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) }] },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Forks keep worker memory apart and let a crashing test die alone. Three test files at once on CI's
    // two cores: with two, ~15 % of the cores sat idle while a file waited on a load window, a child
    // process or a server (vmstat beside a fresh-clone run: idle 30-58 % in those stretches); with three,
    // the untimed groups keep both cores busy, and a fresh-clone CI took 410-427 s, not 447-495 s
    // (docs/CONTRIBUTING.md, "Tests").
    // The timed group keeps one worker, alone on the cores (below).
    pool: 'forks',
    maxWorkers: 3,
    // A suite run allocates ~4 GB of short-lived cases, bodies and answers: with V8's 16 MiB young
    // generation it took ~285 scavenges and ~14 % of its CPU in GC; with 64 MiB, 86 scavenges
    // (docs/benchmarks.md#cpu-of-a-suite-run). The CLI keeps V8's default (its memory is bounded apart: src/cli/heap.ts).
    execArgv: ['--max-semi-space-size=64'],
    sequence: { sequencer: sequencerFor(LONGEST_FIRST, 'slow') },
    // bin/pouchproof.js prefers a build in dist/ when there is one: the suite tests the sources, never a stale build
    // (its CLI children run the build this run makes of them: globalSetup below).
    // The example database is off unless a test names its own directory: one test's stored cases must
    // never be re-run first by another's run of the same target (the embedded reference is one target).
    env: { POUCHPROOF_FROM_SOURCE: '1', POUCHPROOF_EXAMPLES: 'off' },
    // Children that run `pouchproof` run a build of the tree this run made (test/cli-build.ts): ~0.55 s
    // of CPU less each than tsx from the sources, about a hundred times in a full run.
    globalSetup: ['./test/cli-build.ts'],
    // A worker runs file after file in one module graph (isolate: false): each file imported the whole
    // tree again (~0.5 s) and warmed V8 again (a suite run's first pass takes twice the CPU of the next).
    // The fast tier took 138 s with isolation, 89 s without. What a file changes for the next is undone
    // after each test: spies and stubbed environment variables (below), fake timers (each file's afterEach).
    restoreMocks: true,
    unstubEnvs: true,
    unstubGlobals: true,
    projects: [
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...SLOW_TIER, ...TIMED_TIER], isolate: false } },
      { extends: true, test: { name: 'slow', include: SLOW_TIER, isolate: false } },
      // Isolated: a timed file measures latency and CPU in a process no earlier file has filled.
      { extends: true, test: { name: 'slow-timed', include: TIMED_TIER, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
