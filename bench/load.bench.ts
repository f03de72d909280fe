/**
 * Load engine benchmark, in two parts.
 *
 * 1. The generator alone (issue 13.9): nginx answers every request with one canned commit envelope
 *    on one core, and each generator in turn runs pinned to the other core with 16 connections:
 *    wrk, autocannon and the engine with a fixed body, then the engine with a unique live-signed
 *    1-op commit per request (commit-throughput, no pre-building). Targets per generator core: the
 *    fixed body at least autocannon's rate, signed commits at least 12k/s. Skipped with a message
 *    when nginx or wrk is not installed.
 *
 * 2. Against one reference server in a child process (its own core), with the same connections, in
 * three interleaved rounds (medians): (a) the engine re-sending one pre-built signed body, (b) the engine with a
 * unique signed commit per request (commit-throughput), (c) autocannon with the same fixed body.
 * Targets: (b)/(a) ≥ 0.9 (building bodies does not throttle the generator) and (a)/(c) ≥ 0.9 (the
 * engine is as fast as autocannon). (b) builds and signs its bodies before the measured window
 * (`prebuild`, sized from (a)'s rate over the run), since on two cores every microsecond the
 * generator spends signing is one the server does not get.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { COMMIT_PARAMS, PREBUILD_MAX, commitSource } from '../scenarios/commit-throughput.ts';
import { CommitBuilder, makeChains } from '../src/load/bodies.ts';
import { median as medianOf } from '../src/mutants/mutants.ts';
import { runEngine, type EngineResult } from '../src/load/engine/engine.ts';
import { callerOf, commitRequest } from '../src/load/requests.ts';
import { Rng } from '../src/load/rng.ts';
import type { LoadRequest, RequestSource } from '../src/load/scenario.ts';
import { parseProfile, type Profile } from '../src/target/profile.ts';
import { startReference } from '../src/reference/index.ts';
import { RESULT_STATUSES, type OperationResultValue } from '../src/spec/index.ts';
import { missingTools, pinSelf, startNginx, wrk } from './nginx.ts';

const CONNECTIONS = 16;
const DURATION_MS = 4000;
/** Rounds of (a), (b) and (c) against the reference, interleaved. */
const REF_ROUNDS = 3;
const root = fileURLToPath(new URL('..', import.meta.url));

export async function startServer(): Promise<{ child: ChildProcess; profile: Profile }> {
  const code = `const { startReference } = await import(${JSON.stringify(new URL('../src/reference/index.ts', import.meta.url).href)});
const ref = await startReference();
process.stdout.write(JSON.stringify(ref.profile) + '\\n');
process.stdin.on('end', () => ref.close().then(() => process.exit(0))); process.stdin.resume();`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.includes('\n')) resolve(buf.slice(0, buf.indexOf('\n')));
    });
    child.once('exit', (c) => reject(new Error(`reference exited with ${c}`)));
  });
  return { child, profile: parseProfile(JSON.parse(line) as unknown) };
}

const defaults = Object.fromEntries(COMMIT_PARAMS.map((p) => [p.name, p.default]));

function fixedSource(req: LoadRequest): RequestSource {
  return { next: () => req, complete: (_r, res) => ({ ok: !(res instanceof Error) && res.status < 300, units: 1 }) };
}

function engine(profile: Profile, source: RequestSource, durationMs = DURATION_MS): Promise<EngineResult> {
  return runEngine({ baseUrl: profile.baseUrl, source, model: { kind: 'closed' }, connections: CONNECTIONS, durationMs, maxRequests: 10_000_000, timeoutMs: 10_000, warmupMs: 1000 });
}

const rps = (e: EngineResult): number => (e.completed * 1000) / e.wallMs;

export async function run(): Promise<void> {
  await againstNginx();
  const { child, profile } = await startServer();
  try {
    const rng = new Rng(99);
    const caller = callerOf(profile, 'device', rng.uuid());
    const builder = new CommitBuilder({ rng, shape: { opsPerBatch: 1, envelopeSize: defaults['envelope'] as number, blobIdsPerOp: defaults['blobs'] as number }, signerMemberId: caller.memberId, signer: caller.signer });
    const fixed = commitRequest(caller, builder.build(makeChains(rng, [rng.uuid()], 1)[0]!), 'fixed');

    // Warm the server's hot paths for both bodies first, so that no measured run pays for it.
    await engine(profile, fixedSource(fixed), 2000);
    // Interleaved rounds, medians: on a shared machine a noisy minute then hits every generator alike.
    const runsA: EngineResult[] = [];
    const runsB: EngineResult[] = [];
    const runsC: number[] = [];
    let bStats: Record<string, number> = {};
    let c!: Awaited<ReturnType<typeof autocannon>>;
    for (let round = 0; round < REF_ROUNDS; round++) {
      runsA.push(await engine(profile, fixedSource(fixed)));
      // Enough bodies for the whole window at (a)'s rate, with a margin; the rest would be built live.
      const prebuild = Math.min(PREBUILD_MAX, Math.ceil(rps(runsA[0]!) * (DURATION_MS / 1000) * 1.3));
      const bSource = commitSource({ workerIndex: 0, workers: 1, seed: 7 + round, params: { ...defaults, prebuild }, profile, connections: CONNECTIONS });
      runsB.push(await engine(profile, bSource));
      bStats = bSource.stats?.() ?? {};
      c = await autocannon({
        url: profile.baseUrl + fixed.path,
        method: fixed.method,
        headers: fixed.headers as Record<string, string>,
        body: fixed.body,
        connections: CONNECTIONS,
        duration: DURATION_MS / 1000,
      });
      runsC.push(c.requests.total / (DURATION_MS / 1000));
    }
    const a = runsA.at(-1)!;
    const b = runsB.at(-1)!;
    const fromQueue = bStats['prebuiltSent'] ?? 0;
    const cRps = median(runsC);
    const ok = (e: EngineResult): string => `${e.ok}/${e.completed} ok`;
    console.log(`cores: ${availableParallelism()}; reference in a child process; ${CONNECTIONS} connections, ${DURATION_MS / 1000} s each, closed model; the last round:`);
    console.log(`(a) engine, fixed pre-built body:       ${rps(a).toFixed(0).padStart(6)} req/s  p50 ${(a.latency.p50 / 1000).toFixed(2)} ms  p99 ${(a.latency.p99 / 1000).toFixed(2)} ms  (${ok(a)}, event loop ${(a.loopUtilization * 100).toFixed(0)}%)`);
    console.log(`(b) engine, unique signed body each:    ${rps(b).toFixed(0).padStart(6)} req/s  p50 ${(b.latency.p50 / 1000).toFixed(2)} ms  p99 ${(b.latency.p99 / 1000).toFixed(2)} ms  (${ok(b)}, event loop ${(b.loopUtilization * 100).toFixed(0)}%, building/judging in the window ${((b.generatorMs / b.wallMs) * 100).toFixed(0)}%)`);
    console.log(
      `    (b) pre-built ${bStats['prebuilt'] ?? 0} bodies before the window in ${b.prepareMs.toFixed(0)} ms (${((b.prepareMs / Math.max(1, bStats['prebuilt'] ?? 0)) * 1000).toFixed(0)} µs each, not in the window); ` +
        // Taken from the queues counts the few the engine prefetched and had not sent when the window closed.
        `took ${fromQueue} of them, built ${Math.max(0, b.sent - fromQueue)} live, dropped ${bStats['prebuiltDropped'] ?? 0} stale`,
    );
    console.log(`(c) autocannon, fixed body:             ${runsC.at(-1)!.toFixed(0).padStart(6)} req/s  p50 ${c.latency.p50} ms  p99 ${c.latency.p99} ms  (${c['2xx']} 2xx, ${c.non2xx} non-2xx, ${c.errors} errors)`);
    const ba = median(runsB.map(rps)) / median(runsA.map(rps));
    const ac = median(runsA.map(rps)) / cRps;
    const each = (xs: readonly number[]): string => xs.map((x) => x.toFixed(2)).join(', ');
    console.log(
      `medians of ${REF_ROUNDS} interleaved rounds: (a) ${median(runsA.map(rps)).toFixed(0)}/s, (b) ${median(runsB.map(rps)).toFixed(0)}/s, (c) ${cRps.toFixed(0)}/s; ` +
        `(b)/(a) = ${ba.toFixed(3)} (target ≥ 0.9; rounds ${each(runsB.map((x, r) => rps(x) / rps(runsA[r]!)))})   ` +
        `(a)/(c) = ${ac.toFixed(3)} (target ≥ 0.9; rounds ${each(runsA.map((x, r) => rps(x) / runsC[r]!))})`,
    );
    const saturated = (e: EngineResult): boolean => e.loopUtilization >= 0.9;
    if (ba < 0.9) {
      const live = b.sent - fromQueue;
      console.log(
        saturated(b)
          ? `(b)/(a) below target: the sending thread was saturated (event loop ${(b.loopUtilization * 100).toFixed(0)}%, ${((b.generatorMs / b.wallMs) * 100).toFixed(0)}% building and judging): use more --workers.`
          : live > b.sent * 0.05
            ? `(b)/(a) below target: the pre-built bodies ran out (${live} of ${b.sent} built live, signing in the window); raise prebuild.`
            : `(b)/(a) below target with the bodies built before the window and the generator not saturated (event loop ${(b.loopUtilization * 100).toFixed(0)}%): ` +
              `the server limits (b), since a fresh commit costs it more (conflict check, apply, a growing store) than the replay of one operation_id that (a) and (c) measure.`,
      );
    }
    if (ac < 0.9) {
      console.log(
        saturated(a)
          ? `(a)/(c) below target: the engine's sending thread was saturated (event loop ${(a.loopUtilization * 100).toFixed(0)}%): its per-request cost (writing the request, reading and judging the answer, the histogram) exceeds autocannon's.`
          : `(a)/(c) below target with the engine's thread at ${(a.loopUtilization * 100).toFixed(0)}%: not the engine's own CPU; on 2 shared cores the server and run-to-run noise set the figures (repeat the bench on an idle machine).`,
      );
    }
  } finally {
    child.stdin?.end();
    await new Promise((r) => child.once('exit', r));
  }
}

/** Per generator core, what unique live-signed 1-op commits must reach (issue 13.9). */
const SIGNED_TARGET_RPS = 12_000;
/** Seconds per measured round, and rounds per generator: the rounds interleave, so a noisy minute on a shared machine hits every generator alike, and the median is reported. */
const ROUND_SECONDS = 3;
const ROUNDS = 3;

/** The answer nginx gives to every commit: one applied result, as a 1-op commit expects. */
function cannedEnvelope(rng: Rng): string {
  const result: OperationResultValue = { status: RESULT_STATUSES[0], artifact_id: rng.uuid(), revision_id: rng.uuid(), seq: 1, high_water: 1 };
  return JSON.stringify({ ok: true, data: { results: [result] }, meta: { request_id: 'bench' } });
}

const median = (xs: readonly number[]): number => medianOf(xs) ?? 0;

/** One round of one generator: its rate, and its CPU time per request (the figure a shared machine distorts least). */
interface Round {
  readonly rps: number;
  readonly cpuUs: number;
  readonly note: string;
  /** The engine's time building, signing and judging, per request (µs). */
  readonly genUs?: number;
}

type RoundRun = { n: number; seconds: number; note: string; genUs?: number };

async function measured(f: () => Promise<RoundRun>): Promise<Round> {
  const c0 = process.cpuUsage();
  const out = await f();
  const d = process.cpuUsage(c0);
  return { rps: out.n / out.seconds, cpuUs: (d.user + d.system) / Math.max(1, out.n), note: out.note, ...(out.genUs === undefined ? {} : { genUs: out.genUs }) };
}

/** Median µs per call of `f` over a few tight loops (after a warm-up). */
function tightUs(f: () => unknown, n = 2000): number {
  for (let i = 0; i < n / 4; i++) f();
  const runs: number[] = [];
  for (let k = 0; k < 5; k++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) f();
    runs.push(((performance.now() - t0) * 1000) / n);
  }
  return median(runs);
}

function limitOf(e: EngineResult): string {
  return e.loopUtilization >= 0.9
    ? `event loop ${(e.loopUtilization * 100).toFixed(0)}% busy (generator-bound), ${((e.generatorMs * 1000) / Math.max(1, e.completed)).toFixed(0)} µs/request building, signing and judging`
    : `event loop ${(e.loopUtilization * 100).toFixed(0)}% busy: nginx or the machine limits it`;
}

export async function againstNginx(): Promise<void> {
  const missing = missingTools();
  if (missing) {
    console.log(`generator vs nginx: skipped, ${missing}`);
    return;
  }
  // A throwaway reference only for its profile: the device key signs, nginx answers.
  const ref = await startReference();
  const doc = ref.profile;
  await ref.close();
  const cores = availableParallelism();
  const serverCore = cores >= 2 ? 0 : undefined;
  const genCore = cores >= 2 ? 1 : undefined;
  const rng = new Rng(42);
  const nginx = await startNginx(cannedEnvelope(rng), serverCore);
  const pinnedSelf = genCore !== undefined && pinSelf(String(genCore));
  try {
    const profile = parseProfile({ ...doc, baseUrl: nginx.url });
    const caller = callerOf(profile, 'device', rng.uuid());
    const builder = new CommitBuilder({ rng, shape: { opsPerBatch: 1, envelopeSize: defaults['envelope'] as number, blobIdsPerOp: defaults['blobs'] as number }, signerMemberId: caller.memberId, signer: caller.signer });
    const fixed = commitRequest(caller, builder.build(makeChains(rng, [rng.uuid()], 1)[0]!), 'fixed');
    const w = wrk({ url: nginx.url + fixed.path, body: fixed.body, headers: fixed.headers, connections: CONNECTIONS, seconds: ROUND_SECONDS, core: genCore });
    const ms = ROUND_SECONDS * 1000;
    const engineRun = async (source: RequestSource): Promise<RoundRun> => {
      const e = await runEngine({ baseUrl: nginx.url, source, model: { kind: 'closed' }, connections: CONNECTIONS, durationMs: ms, maxRequests: 100_000_000, timeoutMs: 10_000, warmupMs: 300 });
      const bad = e.completed - e.ok;
      return { n: e.completed, seconds: e.wallMs / 1000, note: `${bad === 0 ? 'all ok' : `${bad} not ok`}; ${limitOf(e)}`, genUs: (e.generatorMs * 1000) / Math.max(1, e.completed) };
    };
    const gens: ReadonlyArray<{ name: string; run: () => Promise<RoundRun> }> = [
      {
        name: 'autocannon, fixed body',
        run: async () => {
          const c = await autocannon({ url: nginx.url + fixed.path, method: fixed.method, headers: fixed.headers as Record<string, string>, body: fixed.body, connections: CONNECTIONS, duration: ROUND_SECONDS });
          return { n: c.requests.total, seconds: ROUND_SECONDS, note: `${c.errors} errors, ${c.non2xx} non-2xx` };
        },
      },
      { name: 'pouchproof engine, fixed body', run: () => engineRun(fixedSource(fixed)) },
      {
        name: 'pouchproof, live-signed commits',
        run: () => engineRun(commitSource({ workerIndex: 0, workers: 1, seed: 9, params: { ...defaults, prebuild: 0 }, profile, connections: CONNECTIONS })),
      },
    ];
    const rounds = gens.map(() => [] as Round[]);
    for (let r = 0; r < ROUNDS; r++) for (let g = 0; g < gens.length; g++) rounds[g]!.push(await measured(gens[g]!.run));
    console.log(`generator vs nginx (canned commit envelope; nginx on core ${serverCore ?? 'any'}, generators on core ${pinnedSelf ? genCore : 'any'}; ${CONNECTIONS} connections; ${ROUNDS} interleaved rounds of ${ROUND_SECONDS} s, medians)`);
    console.log(`  wrk (C, fixed body):                ${w.toFixed(0).padStart(7)} req/s  (the ceiling: HTTP alone, one round)`);
    const rate = (g: number): number => median(rounds[g]!.map((x) => x.rps));
    const cpu = (g: number): number => median(rounds[g]!.map((x) => x.cpuUs));
    gens.forEach((gen, g) => {
      console.log(
        `  ${(gen.name + ':').padEnd(34)} ${rate(g).toFixed(0).padStart(7)} req/s  ${cpu(g).toFixed(1).padStart(6)} µs CPU/request → ${(1e6 / cpu(g)).toFixed(0)} req/s per core  ` +
          `(rounds ${rounds[g]!.map((x) => x.rps.toFixed(0)).join(', ')}; last: ${rounds[g]!.at(-1)!.note})`,
      );
    });
    const perRound = rounds[1]!.map((x, r) => rounds[0]![r]!.cpuUs / x.cpuUs);
    console.log(
      `  fixed body vs autocannon, per core: ${(cpu(0) / cpu(1)).toFixed(2)} (target ≥ 1; rounds ${perRound.map((x) => x.toFixed(2)).join(', ')}); by rate ${(rate(1) / rate(0)).toFixed(2)}; fixed/wrk ${(rate(1) / w).toFixed(2)}`,
    );
    console.log(`  live-signed commits per core: ${(1e6 / cpu(2)).toFixed(0)}/s vs target ${SIGNED_TARGET_RPS}/s (${((1e6 / cpu(2)) / SIGNED_TARGET_RPS).toFixed(2)})`);
    // What limits it: the same work in a tight loop, without HTTP, beside what the run spent.
    const chain = makeChains(rng, [rng.uuid()], 1)[0]!;
    const buildSign = tightUs(() => builder.build(chain));
    const body = fixed.body;
    const signOnly = tightUs(() => caller.signer!.signCanonical(body));
    const gen = median(rounds[2]!.map((x) => x.genUs ?? 0));
    console.log(
      `  what limits it: ${cpu(2).toFixed(0)} µs CPU per signed request, of which ${gen.toFixed(0)} µs building, signing and judging in the run ` +
        `(the same build + sign alone in a tight loop: ${buildSign.toFixed(0)} µs, the ES256 signature alone ${signOnly.toFixed(0)} µs → ${(1e6 / signOnly / 1000).toFixed(1)}k/s per core with free HTTP) ` +
        `and ${(cpu(2) - gen).toFixed(0)} µs for HTTP, the event loop and bookkeeping (${cpu(1).toFixed(0)} µs in all with a fixed body at its higher rate)`,
    );
  } finally {
    await nginx.stop();
    // Unpin, so the reference comparison below may use both cores again.
    if (pinnedSelf) pinSelf(`0-${cores - 1}`);
  }
}
