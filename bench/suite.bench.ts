/**
 * `npm run bench suite`: the default conformance suite against the embedded reference (wall time,
 * requests, requests/s), then every fault of the reference with the number of requests until its
 * first detection, and the suite against a server whose one kind of request is answered 503 at any rate.
 * Targets (issues 5 and 11): suite ≤ 30 s on a 2-core machine (coverage phase, sequences
 * and histories included), every fault detected
 * within the default run, median requests-to-detection ≤ 100. Prints figures; never fails.
 */
import { median, runMutants } from '../src/mutants/mutants.ts';
import { DEFAULT_RUNS, isFailing, runProperties } from '../src/check/run/index.ts';
import { FAULTS } from '../src/reference/index.ts';
import { resolveTarget } from '../src/target/resolve.ts';
import { ALL_PROPERTIES } from '../properties/index.ts';
import { LOAD_CHECKS } from '../scenarios/checks.ts';
import { EMBEDDED_REFERENCE } from '../src/reference/embedded.ts';

const SEED = Number(process.env.BENCH_SEED ?? 20260101);

const embedded = (faults: readonly string[]) => resolveTarget({ kind: 'embedded', faults }, EMBEDDED_REFERENCE);

/** The default suite against the embedded reference with `faults`. */
async function suiteOn(faults: readonly string[]): Promise<Awaited<ReturnType<typeof runProperties>>> {
  const t = await embedded(faults);
  try {
    return await runProperties(t.profile, ALL_PROPERTIES, { seed: SEED, runs: DEFAULT_RUNS, embedded: true });
  } finally {
    await t.close();
  }
}

export async function run(): Promise<void> {
  const suite = await suiteOn([]);
  const secs = suite.durationMs / 1000;
  const findings = suite.results.flatMap((r) => r.findings).filter((f) => f.kind !== 'skipped');
  const violations = findings.filter((f) => isFailing(f.kind)).length;
  console.log(`default suite: ${suite.results.length} properties, ${DEFAULT_RUNS} runs, seed ${SEED}`);
  console.log(`  wall time      ${secs.toFixed(1)} s   (target ≤ 30 s)`);
  console.log(`  requests       ${suite.requests}`);
  console.log(`  requests/s     ${(suite.requests / Math.max(secs, 0.001)).toFixed(0)}`);
  console.log(`  violations     ${violations}   (violations, server errors, crashes; expected 0 against the correct reference)`);
  console.log(`  other findings ${findings.length - violations}   (any kind; expected 0)`);
  if (suite.coverage) console.log(`  coverage       ${suite.results.reduce((n, r) => n + (r.coverage?.cases ?? 0), 0)} coverage cases`);
  const slow = [...suite.results].sort((a, b) => b.durationMs - a.durationMs).slice(0, 5);
  console.log(`  slowest        ${slow.map((r) => `${r.id} ${(r.durationMs / 1000).toFixed(1)}s`).join(', ')}`);

  await busyKind(secs);

  const m = await runMutants(ALL_PROPERTIES, FAULTS, embedded, { seed: SEED, runs: DEFAULT_RUNS, seeds: 0, loadChecks: LOAD_CHECKS });
  console.log(`\nfaults: requests until first detection (default runs, stopping at the first kill)`);
  for (const f of m.faults) {
    // Load checks are timed runs, not request budgets: their request counts are not comparable.
    const count = f.loadOnly ? '  load' : String(f.requestsToDetection ?? '?').padStart(6);
    const what = f.killed ? `${count}  ${f.killedBy.join(', ')}` : f.ran ? '  SURVIVED' : '  (not run)';
    console.log(`  ${f.fault.padEnd(32)} ${what}`);
  }
  const detections = m.faults.filter((f) => !f.loadOnly && f.requestsToDetection !== undefined).map((f) => f.requestsToDetection!);
  console.log(`  killed ${m.killed}/${FAULTS.length} (${m.faults.filter((f) => f.loadOnly && f.killed).length} by load checks); median requests to detection ${median(detections) ?? '—'} over the suite's kills (target ≤ 100); survivors: ${m.survivors.join(', ') || 'none'}`);
}

/**
 * The default suite against a server that answers every commit holding a maximal envelope 503 with
 * `Retry-After: 1`, at any rate (fault retry-after-503-maximal): each such request is the server's
 * own answer, not throttling, and costs seconds once, then nothing (throttle.ts, what is learnt per
 * kind of refusal). Issue 29: a server error within seconds, not minutes; 368 s before, 18 s after.
 */
async function busyKind(cleanSecs: number): Promise<void> {
  const r = await suiteOn(['retry-after-503-maximal']);
  const secs = r.durationMs / 1000;
  const errors = r.results.flatMap((p) => p.findings).filter((f) => f.kind === 'server-error').length;
  console.log(`\nthe same suite against retry-after-503-maximal (every maximal envelope answered 503, Retry-After: 1)`);
  console.log(`  wall time      ${secs.toFixed(1)} s   (${(secs / Math.max(cleanSecs, 0.001)).toFixed(1)}× the run above; target ≤ 3×)`);
  console.log(`  server errors  ${errors}   (expected > 0: the fault is found)`);
  console.log(`  throttled      ${r.throttling?.throttled ?? 0} answers, ${((r.throttling?.waitedMs ?? 0) / 1000).toFixed(1)} s waited`);
}
