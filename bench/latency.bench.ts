/**
 * `npm run bench latency`: the same seed of the default suite (readings probe included, as
 * `pouchproof run` does it) against the embedded reference on loopback and behind a delay link
 * (delay-link.ts) adding a fixed delay each way, side by side in one run. Target (issue 22): at a
 * 30 ms round trip the wall time is at most 2× the loopback's. Prints figures; never fails.
 */
import { startReference } from '../src/reference/index.ts';
import { openTarget, runSession, type SessionOptions } from '../src/session/index.ts';
import { parseProfile } from '../src/target/profile.ts';
import { delayLink } from './delay-link.ts';

const SEED = Number(process.env.BENCH_SEED ?? 20261126);
/** One-way delays to measure, in ms (a round trip is twice that). */
const DELAYS = (process.env.BENCH_DELAYS ?? '15,50').split(',').map(Number).filter((n) => n > 0);

async function timed(baseUrl: string, profileDoc: Record<string, unknown>, o: Partial<SessionOptions> = {}) {
  const t = await openTarget({ profile: parseProfile({ ...profileDoc, baseUrl }) });
  const started = Date.now();
  const { report } = await runSession(t, { seed: SEED, runs: 25, readings: 'auto', maxDurationMs: 30 * 60_000, ...o }, { line: () => undefined });
  return { ms: Date.now() - started, report };
}

export async function run(): Promise<void> {
  const ref = await startReference({ port: 0 });
  try {
    const doc = ref.profile as unknown as Record<string, unknown>;
    const base = await timed(ref.url, doc);
    const line = (label: string, r: Awaited<ReturnType<typeof timed>>) =>
      console.log(`  ${label.padEnd(26)} ${(r.ms / 1000).toFixed(1).padStart(6)} s   ${String(r.report.totals.requests).padStart(6)} requests   exit ${r.report.exitCode}   ${r.report.totals.passed}/${r.report.totals.properties} passed`);
    console.log(`suite, seed ${SEED}, 25 runs, readings probed (auto), concurrency: the profile's connections`);
    line('loopback', base);
    for (const d of DELAYS) {
      const link = await delayLink(ref.url, d);
      try {
        const r = await timed(link.url, doc);
        line(`${2 * d} ms round trip`, r);
        console.log(`    ratio to loopback        ${(r.ms / base.ms).toFixed(2)}×${2 * d === 30 ? '   (target ≤ 2×)' : ''}`);
        const slow = [...r.report.properties].sort((a, b) => b.durationMs - a.durationMs).slice(0, 4);
        console.log(`    slowest                  ${slow.map((p) => `${p.id} ${(p.durationMs / 1000).toFixed(1)}s`).join(', ')}`);
      } finally {
        await link.close();
      }
    }
  } finally {
    await ref.close();
  }
}
