/**
 * 4.2, 4.3, 4.4 and 8, cost: "Commits 1 to 50 signed, encrypted operations", each with "blob_ids …
 * at most 2000 items" and an "envelope … at most 699051 characters"; "rows … at most 2000 items" in a
 * usage report; a passkey's `response`, "free-form object with arbitrary properties". The spec
 * states these limits and no latency, so nothing here is a violation: a request whose cost grows
 * worse than linearly with one of these dimensions (an O(n²) duplicate check, a buffer
 * re-concatenated per chunk, a backtracking pattern refusing a long value, a list searched per
 * member or per row) is a smell that invites a denial of service within the limits, reported apart
 * as a `performance` finding and failing the run only under `--fail-on performance`.
 *
 * Invariant: within the stated limits, a request's cost grows at most linearly with the number of
 * blob ids per op, the envelope's length, the number of ops per batch, the length of an envelope
 * that is refused for its last character, the rows of a usage report and the members of a
 * free-form object.
 *
 * Ground: no clause; the rule of thumb that a server's work on a request is linear in its size
 * (`performanceJudgement`). The probe is short and bounded (a few dozen requests per dimension, one
 * time budget for all), judges fastest-of-rounds latencies against a linear model with a generous
 * factor and confirms a suspicion before reporting it (src/check/model/cost-growth.ts).
 */
import fc from 'fast-check';
import { costCurve, describeEvidence, probeCost, sizesUpTo, type CostDimension, type CostVerdict, type SendSized } from '../src/check/model/cost-growth.ts';
import { describeResponse, unexpected } from '../src/check/judge/judge.ts';
import { performanceJudgement } from '../src/check/judge/judgements.ts';
import { plainDay } from '../src/check/model/plain.ts';
import { PASS, defineProperty, unknownOutcome, type Capability, type CaseContext, type Outcome, type Property } from '../src/check/property.ts';
import type { JsonObject } from '../src/gen/index.ts';
import { CPU_TIMING_HEADER, LIMITS } from '../src/spec/index.ts';
import type { Exchange } from '../src/target/client.ts';
import { commit, fates, op, pouchFor, type Op } from './support/commits.ts';
import { plainRequest, prepare } from './support/requests.ts';

export const COST_LINEAR = performanceJudgement(
  'performance.cost-linear',
  'Within the stated limits, a request\'s cost (its latency; the process\'s CPU time for the in-process reference) grows at most linearly with blob ids per op, envelope length, ops per batch, the length of a refused envelope, usage rows per report and the members of a free-form object (fastest of interleaved rounds, 2× a linear model and worse than linear over each of the last two doublings, confirmed once).',
  'a server\'s work on a request should be linear in the request\'s size; cost growing worse than linearly within the limits the spec allows lets one client\'s maximal requests starve everybody (a denial of service the spec\'s limits were meant to bound)',
);

/**
 * The whole probe's time bound: a dimension not measured within it is left inconclusive. Against
 * the in-process reference the six dimensions take ~2 s in all; the bound is for a remote target,
 * where each request also pays a round trip: a dimension sends ~42 requests in ~26 round trips
 * (twice when a suspicion is confirmed), so six take ~160 round trips, 18 s over a 100 ms link. It
 * stays under the property's default time bound (30 s), which would otherwise cut the probe first.
 */
export const COST_PROBE_BUDGET_MS = 25_000;

const OPS_MAX = LIMITS.opsPerCommit.max ?? LIMITS.opsPerCommit.min ?? 1;
const OPS_MIN = LIMITS.opsPerCommit.min ?? 1;
const BLOBS_MAX = LIMITS.blobIdsPerOp.max ?? 1;
const ENVELOPE_MAX = LIMITS.envelopeLength.max ?? 1;
const ROWS_MAX = LIMITS.usageRowsPerRequest.max ?? 1;
/**
 * Members of the free-form `response` object (4.4 states no count): 2^13, a body of ~100 kB, where
 * a duplicate-name check comparing each name with every earlier one makes ~3·10⁷ comparisons, a third
 * of what the quadratic blob-id check makes at its limit.
 */
export const MEMBERS_MAX = 2 ** 13;
/** Lists are never empty in the harness's commits (`empty-lists`): one blob id is the baseline. */
const ONE = 1;
/** Outside the envelope's alphabet (2.5): what makes the refused envelope refused. */
const FORBIDDEN = '.';

/**
 * One request of a dimension, built: sending it is all that is measured; whether its answer is the
 * one the dimension measures (`unlike` says why not) is read after the measurement.
 */
interface Built {
  readonly send: () => Promise<Exchange>;
  readonly unlike: (ex: Exchange) => string | undefined;
}

/** One dimension of the probe: what grows, and one request of a given size. */
export interface CostProbe {
  readonly dimension: CostDimension;
  /** A capability beyond the property's own: without it the dimension is left unmeasured. */
  readonly needs?: Capability;
  readonly build: (ctx: CaseContext, size: number) => Built;
}

/** Distinct short blob ids: what a server does per id shows, not what it does per byte. */
function blobIds(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `b${i.toString(36)}`);
}

/** A commit of `ops` fresh creates, each with `blobs` blob ids and an envelope of `envelope`, which must apply. */
function creates(ctx: CaseContext, what: string, ops: number, blobs: number, envelope: string): Built {
  const ids = blobIds(blobs);
  const list: Op[] = Array.from({ length: ops }, () => op(ctx, { type: 'create', artifact: ctx.uuid(), revision: ctx.uuid(), base: null }, { blob_ids: ids, envelope }));
  const pouch = pouchFor(ctx);
  return {
    send: () => commit(ctx, pouch, list),
    unlike: (ex) => (fates(ctx, ex, list).batch === 'applied' ? undefined : `a commit with ${what} was not applied (${describeResponse(ex)})`),
  };
}

/** A request that must be served. */
const served = (what: string) => (ex: Exchange): string | undefined => (ex.verdict === 'accepted' ? undefined : `${what} was refused (${describeResponse(ex)})`);

/**
 * Blob ids are probed in full batches: a per-op cost then shows fifty times over, while the body
 * stays around a megabyte. Ops per batch carry an eighth of the blob-id limit each, so per-op work
 * is measurable; the envelope is probed on one op. The refused envelope is one op whose envelope
 * ends in a character outside the alphabet: the refusal's cost is measured as an acceptance's is,
 * since a pattern that backtracks costs nothing on a valid value. Usage rows are distinct (one
 * assistant each, a key under every reading of `usage-row-key`), sent to a fresh source each time.
 * The members are those of 4.4's free-form `response`, the one object whose members are any the
 * client likes, whatever `unknown-fields-ignored` says.
 */
export const PROBES: readonly CostProbe[] = [
  {
    dimension: { name: 'blob_ids', what: `blob_ids per op (${OPS_MAX} ops per batch)`, baseline: ONE, sizes: sizesUpTo(BLOBS_MAX, ONE) },
    build: (ctx, n) => creates(ctx, `blob_ids ${n}`, OPS_MAX, n, 'A'),
  },
  {
    dimension: { name: 'envelope', what: 'envelope length (1 op)', baseline: ONE, sizes: sizesUpTo(ENVELOPE_MAX, ONE) },
    build: (ctx, n) => creates(ctx, `envelope ${n}`, OPS_MIN, ONE, 'A'.repeat(n)),
  },
  {
    dimension: { name: 'ops', what: `ops per batch (${Math.round(BLOBS_MAX / 8)} blob_ids each)`, baseline: OPS_MIN, sizes: sizesUpTo(OPS_MAX, OPS_MIN) },
    build: (ctx, n) => creates(ctx, `ops ${n}`, n, Math.round(BLOBS_MAX / 8), 'A'),
  },
  {
    dimension: { name: 'refused-envelope', what: `length of an envelope refused for its last character (1 op, "${FORBIDDEN}" last)`, baseline: ONE, sizes: sizesUpTo(ENVELOPE_MAX, ONE) },
    build(ctx, n) {
      const bad = op(ctx, { type: 'create', artifact: ctx.uuid(), revision: ctx.uuid(), base: null }, { envelope: `${'A'.repeat(n - 1)}${FORBIDDEN}` });
      const pouch = pouchFor(ctx);
      return {
        send: () => commit(ctx, pouch, [bad]),
        // Accepted, it breaks 2.5 (judged by rejection.violations-rejected); here it only leaves the dimension unmeasured.
        unlike: (ex) => (ex.verdict === 'rejected' ? undefined : `a commit whose envelope ends in "${FORBIDDEN}" was not refused (${describeResponse(ex)})`),
      };
    },
  },
  {
    dimension: { name: 'usage-rows', what: 'rows per usage report (distinct rows, a fresh source)', baseline: ONE, sizes: sizesUpTo(ROWS_MAX, ONE) },
    build(ctx, n) {
      const day = plainDay();
      const rows = Array.from({ length: n }, (_, i) => ({ day, assistant: `a${i.toString(36)}`, model: 'm', input: 0, output: 0, cache_read: 0, cache_write: 0 }));
      const sourceId = ctx.sourceId();
      return { send: () => ctx.call({ endpoint: 'reportUsage', params: { sourceId }, body: { rows } }), unlike: served(`a usage report of ${n} rows`) };
    },
  },
  {
    dimension: { name: 'members', what: 'members of the free-form response object of a passkey registration', baseline: ONE, sizes: sizesUpTo(MEMBERS_MAX, ONE) },
    needs: 'browser',
    build(ctx, n) {
      const response: JsonObject = {};
      for (let i = 0; i < n; i++) response[`k${i.toString(36)}`] = 0;
      const plain = plainRequest('registerPasskey');
      // plainRequest's body for registerPasskey is the endpoint's object body (4.4), typed Json by the generic builder
      const s = prepare(ctx, 'registerPasskey', { params: plain.params, body: { ...(plain.body as JsonObject), response } });
      return { send: () => ctx.call({ endpoint: 'registerPasskey', params: s.params, body: s.body }), unlike: served(`a passkey registration whose response has ${n} members`) };
    },
  },
];

/**
 * One dimension's requests, measured. A 5xx, a dropped request or a 429 ends the probe with that
 * outcome. A request's cost is its latency, or, when the target is the embedded reference (it runs
 * in this process), its CPU time: on a machine shared with other busy processes, wall time stretches
 * long requests more than short ones (a short one may finish inside one time slice, a long one never
 * does), which on its own looks like superlinear growth; CPU time does not stretch. The reference
 * says in `Server-Timing: cpu` what its own work on the request cost, from arrival to answer; the
 * harness's building, serialising and signing of the body (linear, and at the blob-id limit as large
 * as the reference's own linear work) is left out, since it only dilutes a superlinear term. The
 * reference measures only requests that ask (`CPU_TIMING_HEADER`). Without that header in the answer
 * the process's CPU time over the whole request is taken.
 */
function sender(ctx: CaseContext, p: CostProbe, stop: { outcome?: Outcome }, inProcess: boolean): SendSized {
  // In process, each request asks the reference for that header; a remote target is sent nothing more.
  const asking: CaseContext = inProcess ? { ...ctx, call: (o) => ctx.call({ ...o, headers: { ...o.headers, [CPU_TIMING_HEADER]: 'cpu' } }) } : ctx;
  return async (size) => {
    const request = p.build(asking, size);
    const cpu = process.cpuUsage();
    const ex = await request.send();
    const used = process.cpuUsage(cpu);
    const u = unexpected(ex, `a cost probe request (${p.dimension.name} ${size})`);
    if (u) {
      stop.outcome = u;
      return { refused: ex.reason };
    }
    const unlike = request.unlike(ex);
    if (unlike !== undefined) return { refused: unlike };
    if (!inProcess) return { ms: ex.timings.headersMs ?? ex.timings.totalMs };
    return { ms: serverCpuMs(ex) ?? (used.user + used.system) / 1000 };
  };
}

/** The `cpu` metric of a `Server-Timing` header (ms), as the embedded reference sends it. */
function serverCpuMs(ex: Exchange): number | undefined {
  const m = /(?:^|,)\s*cpu\s*;\s*dur=([\d.]+)/.exec(ex.response?.headers['server-timing'] ?? '');
  return m ? Number(m[1]) : undefined;
}

/**
 * The cost probe over `probes` (every dimension, `PROBES`, in a run; one alone in a test that shows
 * what that dimension catches without paying for the others), within `budgetMs` (a test of the
 * budget running out need not wait out the whole of it).
 */
export function costGrowthOver(probes: readonly CostProbe[], budgetMs: number = COST_PROBE_BUDGET_MS): Property<number> {
  return defineProperty<number>({
    id: 'performance.cost-growth',
    section: '4.2',
    invariant: 'Within the stated limits, a request\'s cost grows at most linearly with blob ids per op, envelope length, ops per batch, the length of a refused envelope, usage rows per report and the members of a free-form object.',
    assumptions: ['pouch-existence', 'op-semantics', 'empty-lists', 'caller-kinds'],
    judgements: [COST_LINEAR],
    needs: ['device', 'pouch'],
    // One case: the probe is a measurement, not a search; its seed only orders the sizes of each round.
    runs: 1,
    // Measured alone: other cases in flight would be measured with it.
    concurrency: 1,
    arbitrary: () => fc.integer(),
    describe: (seed) => `cost probe (size order seed ${seed}) over ${probes.map((p) => `${p.dimension.name} ${[p.dimension.baseline, ...p.dimension.sizes].join('/')}`).join('; ')}`,
    async check(ctx, seed) {
      const deadline = Date.now() + budgetMs;
      const inProcess = ctx.allows('embedded-only');
      const verdicts: { probe: CostProbe; verdict: CostVerdict }[] = [];
      for (const [i, probe] of probes.entries()) {
        if (probe.needs && !ctx.allows(probe.needs)) {
          verdicts.push({ probe, verdict: { kind: 'inconclusive', reason: `not measured: the run lacks the capability ${probe.needs}`, requests: 0, ms: 0 } });
          continue;
        }
        const stop: { outcome?: Outcome } = {};
        // Over a network each request pays a round trip: a round's pair goes together (see ProbeOptions).
        const verdict = await probeCost(probe.dimension, sender(ctx, probe, stop, inProcess), { seed: seed + i, deadline, pairsTogether: !inProcess });
        if (stop.outcome) return stop.outcome;
        verdicts.push({ probe, verdict });
      }
      const measure = inProcess ? 'cpu' : 'latency';
      const worse = verdicts.filter((v) => v.verdict.kind === 'superlinear');
      const curves = verdicts.flatMap(({ probe, verdict }) => (verdict.kind === 'inconclusive' ? [] : [costCurve(probe.dimension, verdict.evidence, measure)]));
      if (worse.length > 0) {
        return {
          ok: false,
          kind: 'performance',
          judgement: COST_LINEAR.id,
          message: `${inProcess ? 'cost (CPU time of the in-process reference)' : 'latency'} grows worse than linearly (suspected, then confirmed by a second measurement; fastest of both): ${worse.map(({ probe, verdict }) => (verdict.kind === 'superlinear' ? describeEvidence(probe.dimension, verdict.evidence) : '')).join(' | ')}`,
          curves,
        };
      }
      // A dimension not measured to its limit vouches for nothing: the case is left unjudged, with how far it got.
      const short = verdicts.flatMap(({ probe, verdict }) =>
        verdict.kind === 'inconclusive' ? [`${probe.dimension.what}: ${verdict.reason}${verdict.reached !== undefined ? ` (measured up to ${verdict.reached} of ${probe.dimension.sizes.at(-1)})` : ''}`] : [],
      );
      if (short.length > 0) return unknownOutcome(`the cost probe could not measure every dimension to its limit within ${budgetMs / 1000} s: ${short.join('; ')}`);
      return PASS;
    },
  });
}

export default [costGrowthOver(PROBES)] as const;
