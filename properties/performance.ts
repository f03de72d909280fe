/**
 * 4.2 and 8, cost: "Commits 1 to 50 signed, encrypted operations", each with "blob_ids … at most
 * 2000 items" and an "envelope … at most 699051 characters". The spec states these limits and no
 * latency, so nothing here is a violation: a commit whose cost grows worse than linearly with one of
 * these dimensions (an O(n²) duplicate check, a buffer re-concatenated per chunk) is a smell that
 * invites a denial of service within the limits, reported apart as a `performance` finding and
 * failing the run only under `--fail-on performance`.
 *
 * Invariant: within the stated limits, a commit's latency grows at most linearly with the number of
 * blob ids per op, the envelope's length and the number of ops per batch.
 *
 * Ground: no clause; the rule of thumb that a server's work on a request is linear in its size
 * (`performanceJudgement`). The probe is short and bounded (a few dozen commits, a time budget),
 * judges fastest-of-rounds latencies against a linear model with a generous factor and confirms a
 * suspicion before reporting it (src/check/model/cost-growth.ts).
 */
import fc from 'fast-check';
import { costCurve, describeEvidence, probeCost, sizesUpTo, type CostDimension, type CostVerdict, type SendSized } from '../src/check/model/cost-growth.ts';
import { unexpected } from '../src/check/judge/judge.ts';
import { performanceJudgement } from '../src/check/judge/judgements.ts';
import { PASS, defineProperty, unknownOutcome, type CaseContext, type Outcome } from '../src/check/property.ts';
import { LIMITS } from '../src/spec/index.ts';
import { commit, fates, op, pouchFor, type Op, type Pouch } from './support/commits.ts';

export const COST_LINEAR = performanceJudgement(
  'performance.cost-linear',
  'Within the stated limits, a commit\'s cost (its latency; the process\'s CPU time for the in-process reference) grows at most linearly with blob ids per op, envelope length and ops per batch (fastest of interleaved rounds, 2× a linear model and worse than linear over each of the last two doublings, confirmed once).',
  'a server\'s work on a request should be linear in the request\'s size; cost growing worse than linearly within the limits the spec allows lets one client\'s maximal requests starve everybody (a denial of service the spec\'s limits were meant to bound)',
);

/** The whole probe's time bound: a dimension not measured within it is left inconclusive. */
export const COST_PROBE_BUDGET_MS = 15_000;

const OPS_MAX = LIMITS.opsPerCommit.max ?? LIMITS.opsPerCommit.min ?? 1;
const OPS_MIN = LIMITS.opsPerCommit.min ?? 1;
const BLOBS_MAX = LIMITS.blobIdsPerOp.max ?? 1;
const ENVELOPE_MAX = LIMITS.envelopeLength.max ?? 1;
/** Lists are never empty in the harness's commits (`empty-lists`): one blob id is the baseline. */
const ONE = 1;

/** How one dimension's size becomes a commit's ops. */
interface Shape {
  readonly dimension: CostDimension;
  readonly ops: (size: number) => number;
  readonly blobs: (size: number) => number;
  readonly envelope: (size: number) => number;
}

/**
 * Blob ids are probed in full batches: a per-op cost then shows fifty times over, while the body
 * stays around a megabyte. Ops per batch carry an eighth of the blob-id limit each, so per-op work
 * is measurable; the envelope is probed on one op.
 */
export const SHAPES: readonly Shape[] = [
  {
    dimension: { name: 'blob_ids', what: `blob_ids per op (${OPS_MAX} ops per batch)`, baseline: ONE, sizes: sizesUpTo(BLOBS_MAX, ONE) },
    ops: () => OPS_MAX,
    blobs: (n) => n,
    envelope: () => ONE,
  },
  {
    dimension: { name: 'envelope', what: 'envelope length (1 op)', baseline: ONE, sizes: sizesUpTo(ENVELOPE_MAX, ONE) },
    ops: () => OPS_MIN,
    blobs: () => ONE,
    envelope: (n) => n,
  },
  {
    dimension: { name: 'ops', what: `ops per batch (${Math.round(BLOBS_MAX / 8)} blob_ids each)`, baseline: OPS_MIN, sizes: sizesUpTo(OPS_MAX, OPS_MIN) },
    ops: (n) => n,
    blobs: () => Math.round(BLOBS_MAX / 8),
    envelope: () => ONE,
  },
];

/** Distinct short blob ids: what a server does per id shows, not what it does per byte. */
function blobIds(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `b${i.toString(36)}`);
}

/**
 * Sends commits of fresh creates shaped by `s` into `pouch`; a 5xx, a dropped request or a 429 ends
 * the probe with that outcome. A request's cost is its latency, or, when the target is the embedded
 * reference (it runs in this process), the process's CPU time over the request: on a machine shared
 * with other busy processes, wall time stretches long requests more than short ones (a short one may
 * finish inside one time slice, a long one never does), which on its own looks like superlinear
 * growth; CPU time does not stretch. It includes the harness building and signing the body, which
 * is linear in its size and only dilutes a superlinear term (taking a dry build's CPU time off was
 * tried: the difference of two noisy figures made the fastest-of-rounds biased low).
 */
function sender(ctx: CaseContext, pouch: Pouch, s: Shape, stop: { outcome?: Outcome }, inProcess: boolean): SendSized {
  return async (size) => {
    const blobs = blobIds(s.blobs(size));
    const envelope = 'A'.repeat(s.envelope(size));
    const ops: Op[] = Array.from({ length: s.ops(size) }, () =>
      op(ctx, { type: 'create', artifact: ctx.uuid(), revision: ctx.uuid(), base: null }, { blob_ids: blobs, envelope }),
    );
    const cpu = process.cpuUsage();
    const ex = await commit(ctx, pouch, ops);
    const used = process.cpuUsage(cpu);
    const u = unexpected(ex, `a cost probe commit (${s.dimension.name} ${size})`);
    if (u) {
      stop.outcome = u;
      return { refused: ex.reason };
    }
    if (fates(ctx, ex, ops).batch !== 'applied') return { refused: `a commit with ${s.dimension.name} ${size} was not applied (HTTP ${ex.response?.status})` };
    return { ms: inProcess ? (used.user + used.system) / 1000 : (ex.timings.headersMs ?? ex.timings.totalMs) };
  };
}

const costGrowth = defineProperty<number>({
  id: 'performance.cost-growth',
  section: '4.2',
  invariant: 'Within the stated limits, a commit\'s cost grows at most linearly with blob ids per op, envelope length and ops per batch.',
  assumptions: ['pouch-existence', 'op-semantics', 'empty-lists'],
  judgements: [COST_LINEAR],
  needs: ['device', 'pouch'],
  // One case: the probe is a measurement, not a search; its seed only orders the sizes of each round.
  runs: 1,
  // Measured alone: other cases in flight would be measured with it.
  concurrency: 1,
  arbitrary: () => fc.integer(),
  describe: (seed) => `cost probe (size order seed ${seed}) over ${SHAPES.map((s) => `${s.dimension.name} ${[s.dimension.baseline, ...s.dimension.sizes].join('/')}`).join('; ')}`,
  async check(ctx, seed) {
    const deadline = Date.now() + COST_PROBE_BUDGET_MS;
    const inProcess = ctx.allows('embedded-only');
    const verdicts: { shape: Shape; verdict: CostVerdict }[] = [];
    for (const [i, shape] of SHAPES.entries()) {
      const stop: { outcome?: Outcome } = {};
      const verdict = await probeCost(shape.dimension, sender(ctx, pouchFor(ctx), shape, stop, inProcess), { seed: seed + i, deadline });
      if (stop.outcome) return stop.outcome;
      verdicts.push({ shape, verdict });
    }
    const measure = inProcess ? 'cpu' : 'latency';
    const worse = verdicts.filter((v) => v.verdict.kind === 'superlinear');
    const curves = verdicts.flatMap(({ shape, verdict }) => (verdict.kind === 'inconclusive' ? [] : [costCurve(shape.dimension, verdict.evidence, measure)]));
    if (worse.length > 0) {
      return {
        ok: false,
        kind: 'performance',
        judgement: COST_LINEAR.id,
        message: `${inProcess ? 'cost (CPU time of the in-process reference)' : 'latency'} grows worse than linearly (suspected, then confirmed by a second measurement; fastest of both): ${worse.map(({ shape, verdict }) => (verdict.kind === 'superlinear' ? describeEvidence(shape.dimension, verdict.evidence) : '')).join(' | ')}`,
        curves,
      };
    }
    // A dimension not measured to its limit vouches for nothing: the case is left unjudged, with how far it got.
    const short = verdicts.flatMap(({ shape, verdict }) =>
      verdict.kind === 'inconclusive' ? [`${shape.dimension.what}: ${verdict.reason}${verdict.reached !== undefined ? ` (measured up to ${verdict.reached} of ${shape.dimension.sizes.at(-1)})` : ''}`] : [],
    );
    if (short.length > 0) return unknownOutcome(`the cost probe could not measure every dimension to its limit within ${COST_PROBE_BUDGET_MS / 1000} s: ${short.join('; ')}`);
    return PASS;
  },
});

export default [costGrowth] as const;
