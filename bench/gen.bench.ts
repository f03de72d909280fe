/**
 * Generator throughput: valid 50-op commit bodies per second (realistic shape: 1 KiB envelopes, a
 * few blob ids, serialised as they would be sent) and violation cases per second across the whole
 * request inventory. Printed, never asserted.
 */
import fc from 'fast-check';
import { LIMITS } from '../src/spec/index.ts';
import { allViolations, validBody, maxRequest } from '../src/gen/index.ts';

const KIB = 1024;

function rate<T>(label: string, arb: fc.Arbitrary<T>, budgetMs: number, size: (v: T) => number = () => 0): void {
  const started = performance.now();
  let n = 0;
  let bytes = 0;
  // Batches of samples until the budget is spent; warm-up draws count too (a run is cold as well).
  for (let seed = 1; performance.now() - started < budgetMs; seed++) {
    for (const v of fc.sample(arb, { numRuns: 10, seed })) {
      bytes += size(v);
      n++;
    }
  }
  const s = (performance.now() - started) / 1000;
  const mb = bytes ? `, ${(bytes / s / 2 ** 20).toFixed(1)} MiB/s of JSON` : '';
  console.log(`${label}: ${(n / s).toFixed(1)}/s (${n} in ${s.toFixed(2)} s${mb})`);
}

export async function run(): Promise<void> {
  const ops = LIMITS.opsPerCommit.max!;
  const commit = validBody('commitOperations', { counts: { ops, 'ops[].blob_ids': 3 }, lengths: { 'ops[].envelope': KIB }, boundaries: false });
  rate(`valid ${ops}-op commit bodies (1 KiB envelopes, 3 blob ids)`, commit, 3000, (b) => JSON.stringify(b).length);
  rate('valid commit bodies (default edge-biased mix)', validBody('commitOperations'), 2000, (b) => JSON.stringify(b).length);
  rate('violation cases (all request constraints)', allViolations(), 3000);
  rate('violation cases (commitOperations)', allViolations('commitOperations'), 2000);
  const t = performance.now();
  const [max] = fc.sample(maxRequest('commitOperations'), { numRuns: 1, seed: 1 });
  const size = JSON.stringify(max!.body).length;
  console.log(`maxRequest(commitOperations): ${(size / 2 ** 20).toFixed(1)} MiB in ${((performance.now() - t) / 1000).toFixed(2)} s`);
}
