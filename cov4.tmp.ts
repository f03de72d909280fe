import { runProperties } from './src/check/runner.ts';
import { ALL_PROPERTIES } from './properties/index.ts';
import { startReference } from './src/reference/index.ts';
import { parseProfile } from './src/target/profile.ts';
const props = ALL_PROPERTIES.filter(p => p.id.startsWith('rejection.') || p.id === 'boundaries.limits-accepted' || p.id === 'shapes.valid-accepted');
for (const fault of ['lax-pattern', 'nullable-missing-as-null']) {
  const ref = await startReference({ faults: [fault] });
  const profile = parseProfile(ref.profile);
  let hits = 0;
  for (let seed = 1; seed <= 10; seed++) {
    const run = await runProperties(profile, props, { seed, runs: 25, embedded: true, coverage: false });
    if (run.results.some(r => r.findings.some(f => f.kind === 'violation'))) hits++;
  }
  console.log(fault, 'sampling alone (default 25 runs, rejection.*, boundaries, shapes.valid-accepted) detected in', hits, 'of 10 seeds');
  await ref.close();
}
