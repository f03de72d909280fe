import { performance } from 'node:perf_hooks';
import { commitSource, COMMIT_PARAMS } from '/work/wt-load-engine/scenarios/commit-throughput.ts';
import { startReference } from '/work/wt-load-engine/src/reference/index.ts';
import { parseProfile } from '/work/wt-load-engine/src/target/profile.ts';
const ref = await startReference(); const doc = ref.profile; await ref.close();
const profile = parseProfile(doc);
const defaults = Object.fromEntries(COMMIT_PARAMS.map((p) => [p.name, p.default]));
const src = commitSource({ workerIndex: 0, workers: 1, seed: 1, params: { ...defaults, prebuild: 0 }, profile, connections: 16 });
const canned = { status: 200, body: JSON.stringify({ ok: true, data: { results: [{ status: 'applied', artifact_id: 'a', revision_id: 'b', seq: 1, high_water: 1 }] }, meta: { request_id: 'x' } }) };
const N = Number(process.argv[2] ?? 20000);
for (let round = 0; round < 3; round++) {
  const t = performance.now();
  for (let i = 0; i < N; i++) { const r = src.next()!; src.complete(r, canned); }
  const dt = performance.now() - t;
  console.log(`round ${round}: ${(dt * 1000 / N).toFixed(1)} µs per commit (next+complete)`);
}
