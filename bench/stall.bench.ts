/**
 * Coordinated omission, as figures: the open model's p99 and p99.9 against a reference that stalls
 * periodically (`stall-periodic`), next to their analytic values (test/load/stall.test.ts derives
 * them), and the closed model's p99 on the same server. On a quiet machine the open model lands
 * within a few percent; the test only asserts what a loaded machine cannot fake.
 */
import { loadScenarioByName } from '../scenarios/index.ts';
import { runLoad } from '../src/load/launch.ts';
import { STALL_MS, STALL_PERIOD_MS } from '../src/reference/index.ts';
import { EMBEDDED_REFERENCE } from '../src/reference/embedded.ts';

const expectedUs = (tail: number): number => (STALL_MS - tail * STALL_PERIOD_MS) * 1000;
const params = { member: 'browser', envelope: 0, blobs: 0, ops: 1 };

export async function run(): Promise<void> {
  const scenario = await loadScenarioByName('commit-throughput');
  const target = { kind: 'embedded', faults: ['stall-periodic'] } as const;
  const p99 = expectedUs(0.01), p999 = expectedUs(0.001);
  const ms = (us: number) => `${(us / 1000).toFixed(1)} ms`;
  const err = (m: number, e: number) => `${(((m - e) / e) * 100).toFixed(1)}%`;
  for (const seed of [11, 12, 13]) {
    const { result: r } = await runLoad({ scenario, target, ...EMBEDDED_REFERENCE, params, rate: 250, durationMs: 8000, connections: 64, workers: 1, seed });
    console.log(`open 250 req/s (seed ${seed}): p99 ${ms(r.latency.p99)} (analytic ${ms(p99)}, ${err(r.latency.p99, p99)}), p99.9 ${ms(r.latency.p999)} (analytic ${ms(p999)}, ${err(r.latency.p999, p999)}), ${r.totals.ok} ok, ${r.totals.dropped} dropped`);
  }
  const { result: c } = await runLoad({ scenario, target, ...EMBEDDED_REFERENCE, params, connections: 1, workers: 0, durationMs: 3000, seed: 12 });
  console.log(`closed 1 connection: p99 ${ms(c.latency.p99)} (the stall is ${ms(STALL_MS * 1000)} every ${STALL_PERIOD_MS} ms), ${c.totals.ok} ok`);
}
