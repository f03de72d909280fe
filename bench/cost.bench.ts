/**
 * `npm run bench cost`: the cost probe (`performance.cost-growth`) alone, against the correct
 * reference (it must stay silent: any finding is a false alarm) and against each quadratic fault
 * of the reference (blob ids, envelope, refused envelope, usage rows, members: it must flag them): duration, requests and detections per run, and the evidence of one
 * detection. Prints figures; never fails.
 */
import { runProperties } from '../src/check/run/index.ts';
import { resolveTarget } from '../src/target/resolve.ts';
import PERFORMANCE from '../properties/performance.ts';
import { EMBEDDED_REFERENCE } from '../src/reference/embedded.ts';

const RUNS = Number(process.env.BENCH_COST_RUNS ?? 8);

async function series(faults: readonly string[]): Promise<{ ms: number[]; requests: number[]; flagged: number; evidence?: string }> {
  const t = await resolveTarget({ kind: 'embedded', faults }, EMBEDDED_REFERENCE);
  const out = { ms: [] as number[], requests: [] as number[], flagged: 0, evidence: undefined as string | undefined };
  try {
    for (let i = 0; i < RUNS; i++) {
      const r = (await runProperties(t.profile, PERFORMANCE, { seed: 1000 + i, runs: 1, embedded: true })).results[0]!;
      out.ms.push(r.durationMs);
      out.requests.push(r.requests);
      const f = r.findings.find((x) => x.kind === 'performance');
      if (f) {
        out.flagged++;
        out.evidence ??= f.message;
      }
    }
  } finally {
    await t.close();
  }
  return out;
}

const stats = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `median ${s[s.length >> 1]}, min ${s[0]}, max ${s[s.length - 1]}`;
};

export async function run(): Promise<void> {
  const good = await series([]);
  console.log(`cost probe, correct reference, ${RUNS} runs`);
  console.log(`  duration ms    ${stats(good.ms)}`);
  console.log(`  requests       ${stats(good.requests)}`);
  console.log(`  false alarms   ${good.flagged}/${RUNS}   (expected 0)`);
  for (const fault of ['quadratic-blob-ids', 'quadratic-envelope', 'envelope-regex-backtracking', 'quadratic-usage-rows', 'member-names-quadratic']) {
    const bad = await series([fault]);
    console.log(`cost probe, ${fault}, ${RUNS} runs`);
    console.log(`  duration ms    ${stats(bad.ms)}`);
    console.log(`  requests       ${stats(bad.requests)}`);
    console.log(`  detections     ${bad.flagged}/${RUNS}   (expected all)`);
    if (bad.evidence) console.log(`  evidence       ${bad.evidence}`);
  }
}
