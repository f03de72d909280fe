import autocannon from 'autocannon';
import { commitSource, COMMIT_PARAMS } from '/work/wt-load-engine/scenarios/commit-throughput.ts';
import { startReference } from '/work/wt-load-engine/src/reference/index.ts';
import { parseProfile } from '/work/wt-load-engine/src/target/profile.ts';
import { runEngine } from '/work/wt-load-engine/src/load/engine.ts';
import { startNginx } from '/work/wt-load-engine/bench/nginx.ts';
import { CommitBuilder, makeChains } from '/work/wt-load-engine/src/load/bodies.ts';
import { callerOf, commitRequest } from '/work/wt-load-engine/src/load/requests.ts';
import { Rng } from '/work/wt-load-engine/src/load/rng.ts';
const ref = await startReference(); const doc = ref.profile; await ref.close();
const canned = JSON.stringify({ ok: true, data: { results: [{ status: 'applied', artifact_id: 'a', revision_id: 'b', seq: 1, high_water: 1 }] }, meta: { request_id: 'x' } });
const ng = await startNginx(canned, 0);
const profile = parseProfile({ ...doc, baseUrl: ng.url });
const defaults = Object.fromEntries(COMMIT_PARAMS.map((p) => [p.name, p.default]));
const rng = new Rng(1);
const caller = callerOf(profile, 'device', rng.uuid());
const builder = new CommitBuilder({ rng, shape: { opsPerBatch: 1, envelopeSize: 256, blobIdsPerOp: 2 }, signerMemberId: caller.memberId, signer: caller.signer });
const fixed = commitRequest(caller, builder.build(makeChains(rng, [rng.uuid()], 1)[0]!), 'fixed');
const mode = process.argv[2] ?? 'fixed';
const ms = Number(process.argv[3] ?? 3000);
const cpu0 = process.cpuUsage();
let n = 0; let extra = '';
if (mode === 'ac') {
  const c = await autocannon({ url: ng.url + fixed.path, method: 'POST', headers: fixed.headers as Record<string,string>, body: fixed.body, connections: 16, duration: ms / 1000 });
  n = c.requests.total;
} else {
  const src = mode === 'fixed' ? { next: () => fixed, complete: (_r: unknown, res: any) => ({ ok: !(res instanceof Error) && res.status < 300, units: 1 }) } : commitSource({ workerIndex: 0, workers: 1, seed: 9, params: { ...defaults, prebuild: 0 }, profile, connections: 16 });
  const e = await runEngine({ baseUrl: ng.url, source: src as any, model: { kind: 'closed' }, connections: 16, durationMs: ms, maxRequests: 1e8, timeoutMs: 10000, warmupMs: 300 });
  n = e.completed; extra = `ok ${e.ok} elu ${(e.loopUtilization*100).toFixed(0)}% rps ${(e.completed*1000/e.wallMs).toFixed(0)} gen ${(e.generatorMs*1000/e.completed).toFixed(1)}us/req`;
}
const cpu = process.cpuUsage(cpu0);
console.log(`${mode}: ${n} req, cpu ${((cpu.user + cpu.system) / n).toFixed(1)} µs/req (user ${(cpu.user/n).toFixed(1)}, sys ${(cpu.system/n).toFixed(1)}) → ${(1e6 * n / (cpu.user + cpu.system)).toFixed(0)} req/s per core ${extra}`);
await ng.stop();
