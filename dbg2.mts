import { ALL_PROPERTIES } from './properties/index.ts';
import { runProperties } from './src/check/runner.ts';
import { resolveTarget } from './src/target/resolve.ts';
const t = await resolveTarget({ kind: 'embedded', faults: ['restore-any-revision'] });
const p = ALL_PROPERTIES.filter((x) => x.id === 'commits.model-sequences');
for (const concurrency of [1, 16]) {
  const r = await runProperties(t.profile, p, { seed: 77, runs: 30, embedded: true, concurrency });
  console.log(concurrency, r.results[0]!.status, JSON.stringify(r.results[0]!.evidence), r.results[0]!.findings.map((f) => `${f.kind}: ${f.message.slice(0, 200)}`));
}
await t.close();
