/**
 * `npm run bench latency`: the same seed of the default suite (readings probe included, as
 * `pouchproof run` does it) against the embedded reference on loopback and behind a delay link
 * (delay-link.ts) adding a fixed delay each way, side by side in one run. Target (issue 22): at a
 * 30 ms round trip the wall time is at most 2× the loopback's. Loopback and the first link are measured
 * in ROUNDS interleaved rounds (a shared machine's loopback time alone varied 12–21 s between single
 * runs) and compared by their medians; the other links once. Prints figures; never fails.
 */
import { startReference } from '../src/reference/index.ts';
import { openTarget, runSession, type SessionOptions } from '../src/session/index.ts';
import { parseProfile } from '../src/target/profile.ts';
import { delayLink } from './delay-link.ts';

const SEED = Number(process.env.BENCH_SEED ?? 20261126);
/** One-way delays to measure, in ms (a round trip is twice that). */
const DELAYS = (process.env.BENCH_DELAYS ?? '15,50').split(',').map(Number).filter((n) => n > 0);
/** Interleaved rounds of loopback and the first link. */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timed(baseUrl: string, profileDoc: Record<string, unknown>, o: Partial<SessionOptions> = {}) {
  const t = await openTarget({ profile: parseProfile({ ...profileDoc, baseUrl }) });
  const started = Date.now();
  const { report } = await runSession(t, { seed: SEED, runs: 25, readings: 'auto', maxDurationMs: 30 * 60_000, ...o }, { line: () => undefined });
  return { ms: Date.now() - started, report };
}

/** The four properties that took longest in a run. */
function slowest(r: Awaited<ReturnType<typeof timed>>): void {
  const slow = [...r.report.properties].sort((a, b) => b.durationMs - a.durationMs).slice(0, 4);
  console.log(`    slowest                  ${slow.map((p) => `${p.id} ${(p.durationMs / 1000).toFixed(1)}s`).join(', ')}`);
}

export async function run(): Promise<void> {
  const ref = await startReference({ port: 0 });
  try {
    const doc = ref.profile as unknown as Record<string, unknown>;
    const line = (label: string, r: Awaited<ReturnType<typeof timed>>) =>
      console.log(`  ${label.padEnd(26)} ${(r.ms / 1000).toFixed(1).padStart(6)} s   ${String(r.report.totals.requests).padStart(6)} requests   exit ${r.report.exitCode}   ${r.report.totals.passed}/${r.report.totals.properties} passed`);
    console.log(`suite, seed ${SEED}, 25 runs, readings probed (auto), concurrency: the profile's connections; ${ROUNDS} interleaved rounds of loopback and ${2 * DELAYS[0]!} ms, medians`);
    const loops: number[] = [];
    const firsts: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const lo = await timed(ref.url, doc);
      loops.push(lo.ms);
      line(`loopback, round ${round}`, lo);
      const link = await delayLink(ref.url, DELAYS[0]!);
      try {
        const r = await timed(link.url, doc);
        firsts.push(r.ms);
        line(`${2 * DELAYS[0]!} ms round trip, round ${round}`, r);
        if (round === ROUNDS) {
          slowest(r);
        }
      } finally {
        await link.close();
      }
    }
    const lo = median(loops);
    console.log(`  median loopback ${(lo / 1000).toFixed(1)} s, ${2 * DELAYS[0]!} ms round trip ${(median(firsts) / 1000).toFixed(1)} s: ratio ${(median(firsts) / lo).toFixed(2)}×${2 * DELAYS[0]! === 30 ? '   (target ≤ 2×)' : ''}; per round ${firsts.map((f, i) => (f / loops[i]!).toFixed(2)).join(', ')}`);
    for (const d of DELAYS.slice(1)) {
      const link = await delayLink(ref.url, d);
      try {
        const r = await timed(link.url, doc);
        line(`${2 * d} ms round trip`, r);
        console.log(`    ratio to the median loopback ${(r.ms / lo).toFixed(2)}×`);
        slowest(r);
      } finally {
        await link.close();
      }
    }
  } finally {
    await ref.close();
  }
}
