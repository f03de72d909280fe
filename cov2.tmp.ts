import { runProperties } from './src/check/runner.ts';
import { ALL_PROPERTIES } from './properties/index.ts';
import { startReference } from './src/reference/index.ts';
import { parseProfile } from './src/target/profile.ts';
const faults = process.argv.slice(2);
const ref = await startReference({ faults });
const profile = parseProfile(ref.profile);
const props = ALL_PROPERTIES.filter(p => p.id === 'rejection.violations-rejected' || p.id === 'boundaries.limits-accepted');
const t = Date.now();
const run = await runProperties(profile, props, { seed: 1, runs: 3, embedded: true });
console.log('ms', Date.now() - t, 'requests', run.requests);
for (const r of run.results) { console.log(r.id, r.status, r.runs, r.requests, r.durationMs, r.coverage?.cases); for (const f of r.findings) console.log(' ', f.kind, f.assumption ?? '', f.message.slice(0, 300), '\n   ', f.counterexample?.slice(0, 200), f.replay, f.occurrences); }
const tb = run.coverage!;
console.log(JSON.stringify(tb.totals));
for (const r of tb.rows) if ((r.accept.status !== 'observed' && r.accept.status !== 'none') || (r.reject.status !== 'observed' && r.reject.status !== 'none')) console.log(r.constraint, JSON.stringify(r.accept), JSON.stringify(r.reject));
await ref.close();
