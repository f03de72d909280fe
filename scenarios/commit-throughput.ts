/**
 * commit-throughput (4.2): every request is a unique, validly signed commit continuing its
 * artifact's revision chain, so each is expected to apply. An artifact is leased to one request at
 * a time, so chains never race each other; each worker owns its own artifacts. Reports commits/s,
 * ops/s applied (goodput) and every commit not applied with its reason. `prebuild=N` builds and
 * signs up to N commits before the measured window, so the window measures the target rather
 * than the generator's signing.
 */
import { performance } from 'node:perf_hooks';
import {
  CommitBuilder,
  checkShape,
  makeChains,
  type ArtifactChain,
  type BuiltCommit,
  type CommitShape,
  defineScenario,
  checkWeights,
  weightedPick,
  callerOf,
  commitRequest,
  judgeCommit,
  pouchesFor,
  Rng,
  num,
  text,
  type LoadRequest,
  type ParamDef,
  type Params,
  type RequestSource,
  type SourceContext,
} from '../src/load/index.ts';
import { LIMITS, SIGNATURE_HEADER } from '../src/spec/index.ts';

export const COMMIT_PARAMS: readonly ParamDef[] = [
  { name: 'ops', description: 'ops per batch (chained on one artifact)', default: LIMITS.opsPerCommit.min ?? 1, kind: 'int', min: LIMITS.opsPerCommit.min, max: LIMITS.opsPerCommit.max },
  { name: 'envelope', description: 'envelope characters per op', default: 256, kind: 'int', min: 0, max: LIMITS.envelopeLength.max },
  { name: 'blobs', description: 'blob ids per op', default: 2, kind: 'int', min: 0, max: LIMITS.blobIdsPerOp.max },
  { name: 'pouches', description: 'pouches the artifacts are spread over', default: 4, kind: 'int', min: 1, max: 10_000 },
  { name: 'artifacts', description: 'artifacts in all (each worker owns a share; at least one per connection)', default: 256, kind: 'int', min: 1, max: 1_000_000 },
  { name: 'member', description: 'member kind that commits (devices sign)', default: 'device', kind: 'string', choices: ['device', 'browser'] },
];

export function shapeOf(p: Params): CommitShape {
  return { opsPerBatch: num(p, 'ops'), envelopeSize: num(p, 'envelope'), blobIdsPerOp: num(p, 'blobs') };
}

/** Requests built ahead at most, over all workers: a memory bound of this tool, not a spec limit. */
export const PREBUILD_MAX = 200_000;
/** Body bytes built ahead at most per worker, whatever the shape (large envelopes fill it first). */
export const PREBUILD_MAX_BYTES = 256 * 1024 * 1024;

export const PREBUILD_PARAM: ParamDef = {
  name: 'prebuild',
  description: `requests built and signed ahead of the measured window, in all (0: each is built when sent); at most ${PREBUILD_MAX} and ${PREBUILD_MAX_BYTES / 1024 / 1024} MiB per worker`,
  default: 0,
  kind: 'int',
  min: 0,
  max: PREBUILD_MAX,
};

/** Commits built ahead of their send in the window (the engine's prefetch), per worker. */
const PREFETCH_MAX = 64;

/** Pre-building yields to the event loop this often, so idle keep-alive connections stay serviced. */
const PREBUILD_SLICE_MS = 50;

/** This worker's share of a total, the shares summing to the total. */
function shareOf(total: number, workers: number, index: number): number {
  return Math.floor(total / workers) + (index < total % workers ? 1 : 0);
}

/** One artifact's commits built ahead, in chain order: each continues the one before it. */
interface AheadQueue {
  readonly items: Array<LoadRequest | undefined>;
  head: number;
}

const heldBytesOf = (r: LoadRequest): number => r.body.length + (r.headers[SIGNATURE_HEADER]?.length ?? 0);

/**
 * The commits one worker built ahead of the measured window (`prebuild`), queued per artifact, and
 * their counts for the scenario's stats. Never holds more than `limit` commits or `PREBUILD_MAX_BYTES`.
 */
class Prebuilt {
  private readonly ahead = new Map<ArtifactChain, AheadQueue>();
  private held = 0;
  private heldBytes = 0;
  private peak = 0;
  private built = 0;
  private sent = 0;
  private dropped = 0;

  constructor(readonly limit: number) {}

  /** Drops an artifact's queue: its commits continue a revision that is no longer (or never was) its head. */
  drop(chain: ArtifactChain): void {
    const q = this.ahead.get(chain);
    if (!q) return;
    for (let i = q.head; i < q.items.length; i++) this.heldBytes -= heldBytesOf(q.items[i]!);
    const n = q.items.length - q.head;
    this.held -= n;
    this.dropped += n;
    this.ahead.delete(chain);
  }

  /** The artifact's next queued commit, when there is one and it continues the artifact's real head. */
  take(chain: ArtifactChain): LoadRequest | undefined {
    const q = this.ahead.get(chain);
    if (!q) return undefined;
    const r = q.items[q.head]!;
    q.items[q.head++] = undefined;
    if (q.head === q.items.length) this.ahead.delete(chain);
    this.held--;
    this.heldBytes -= heldBytesOf(r);
    // Queues are dropped whenever a commit fails, so the next queued one starts on the real head.
    if ((r.token as BuiltCommit).base !== chain.head) {
      this.dropped++;
      this.drop(chain);
      return undefined;
    }
    this.sent++;
    return r;
  }

  /** Builds commits round-robin over the idle artifacts, each continuing its queue's last, until a bound is reached. */
  async fill(idle: readonly ArtifactChain[], build: (chain: ArtifactChain, base: string | null) => LoadRequest): Promise<void> {
    const queues = idle.map((c) => this.ahead.get(c) ?? { items: [], head: 0 });
    const tails = idle.map((c, j) => {
      const q = queues[j]!;
      return q.head < q.items.length ? (q.items[q.items.length - 1]!.token as BuiltCommit).finalRevision : c.head;
    });
    let slice = performance.now();
    for (let i = 0; this.held < this.limit && this.heldBytes < PREBUILD_MAX_BYTES; i++) {
      if (performance.now() - slice > PREBUILD_SLICE_MS) {
        await new Promise((r) => setImmediate(r));
        slice = performance.now();
      }
      const j = i % idle.length;
      const r = build(idle[j]!, tails[j]!);
      tails[j] = (r.token as BuiltCommit).finalRevision;
      queues[j]!.items.push(r);
      this.held++;
      this.heldBytes += heldBytesOf(r);
      this.built++;
    }
    this.peak = Math.max(this.peak, this.held);
    idle.forEach((c, j) => {
      if (queues[j]!.head < queues[j]!.items.length) this.ahead.set(c, queues[j]!);
    });
  }

  stats(): Record<string, number> {
    return { prebuilt: this.built, prebuiltSent: this.sent, prebuiltDropped: this.dropped, prebuiltUnused: this.held, prebuiltPeak: this.peak };
  }
}

/** What every commit-building source starts from: its seeded rng, the calling member, a builder and the pouches. */
export function committer(ctx: SourceContext) {
  const rng = new Rng(ctx.seed);
  const member = text(ctx.params, 'member') === 'browser' ? 'browser' : 'device';
  const caller = callerOf(ctx.profile, member, rng.uuid());
  const builder = new CommitBuilder({ rng, shape: shapeOf(ctx.params), signerMemberId: caller.memberId, signer: caller.signer });
  const pouches = pouchesFor(ctx.profile, rng, num(ctx.params, 'pouches'));
  return { rng, caller, builder, pouches };
}

/** One shape of a commit mix: commits of this shape are `weight`/sum of the requests, counted apart as `kind`. */
export interface CommitMix {
  readonly kind: string;
  readonly weight: number;
  /** Over the run's shape (the `ops`, `envelope` and `blobs` parameters): what this kind changes. */
  readonly shape?: Partial<CommitShape>;
}

export interface CommitSourceOptions {
  /** The requests' kind, in load.json's per-kind counts (default 'commit'); a mix names its own kinds. */
  readonly kind?: string;
  /** Commits of several shapes, drawn by weight for each request (absent: every commit has the run's shape). */
  readonly mix?: readonly CommitMix[];
}

/** Each request's shape and kind: the run's shape, or one drawn from the mix. */
function shapeChooser(ctx: SourceContext, base: CommitShape, o: CommitSourceOptions): () => { shape: CommitShape; kind: string } {
  const mix = o.mix;
  if (!mix || mix.length === 0) {
    const one = { shape: base, kind: o.kind ?? 'commit' };
    return () => one;
  }
  checkWeights(mix.map((m) => m.weight), 'commit mix');
  const entries = mix.map((m) => {
    // A field left undefined (a limit the spec might not set) keeps the run's value.
    const shape: CommitShape = { ...base, ...Object.fromEntries(Object.entries(m.shape ?? {}).filter(([, v]) => v !== undefined)) };
    const problem = checkShape(shape);
    if (problem) throw new RangeError(`commit mix ${m.kind}: ${problem}`);
    return { shape, kind: m.kind };
  });
  // Its own stream, so that adding a mix leaves the identifiers of the rest of the run as they were.
  const pick = weightedPick(new Rng((ctx.seed ^ 0x6d2b79f5) >>> 0), mix.map((m) => m.weight));
  return () => entries[pick()]!;
}

/**
 * A source of commits that should all apply; also used by cost-curve and mixed, and by scenarios of
 * one's own (`commitSource(ctx, { mix: [...] })` for commits of several shapes in given shares).
 *
 * With `prebuild` > 0, `prepare()` (called by the engine before the measured window) builds up to
 * that many commits ahead, round-robin over the free artifacts, each queued behind its artifact's
 * previous one (its base is that one's final revision). A lease takes the artifact's next queued
 * commit, or builds one live when the queue is empty. A commit that does not apply makes the queued
 * successors stale: they are dropped, and the artifact continues live from its real head, as
 * without pre-building. The queues never hold more than the worker's share of `prebuild`.
 */
export function commitSource(ctx: SourceContext, options: string | CommitSourceOptions = {}): RequestSource {
  const o: CommitSourceOptions = typeof options === 'string' ? { kind: options } : options;
  const { rng, caller, builder, pouches } = committer(ctx);
  const choose = shapeChooser(ctx, builder.shape, o);
  const build = (chain: ArtifactChain, base: string | null = chain.head): LoadRequest => {
    const { shape, kind } = choose();
    return commitRequest(caller, builder.build(chain, shape, base), kind);
  };
  const perWorker = Math.max(ctx.connections, Math.ceil(num(ctx.params, 'artifacts') / ctx.workers));
  const free: ArtifactChain[] = [...makeChains(rng, pouches, perWorker)];
  let freeHead = 0;
  let replaced = 0;
  let commitsApplied = 0;
  // Scenarios that share this source without the parameter (cost-curve, mixed) build live.
  const requested = ctx.params['prebuild'];
  const prebuilt = new Prebuilt(typeof requested === 'number' ? shareOf(Math.min(PREBUILD_MAX, Math.max(0, requested)), ctx.workers, ctx.workerIndex) : 0);
  return {
    // A free artifact's head is known and nothing else touches it until its commit is sent: its next
    // commit may be built ahead, in batches.
    prefetch: Math.min(PREFETCH_MAX, 2 * ctx.connections),
    next(): LoadRequest | undefined {
      if (freeHead >= free.length) return undefined;
      const chain = free[freeHead++]!;
      if (freeHead > 1024 && freeHead * 2 > free.length) {
        free.splice(0, freeHead);
        freeHead = 0;
      }
      return prebuilt.take(chain) ?? build(chain);
    },
    complete(req, res) {
      const built = req.token as BuiltCommit;
      const out = judgeCommit(res, built.ops);
      let chain = built.chain;
      if (out.ok) {
        chain.head = built.finalRevision;
        chain.applied++;
        commitsApplied++;
      } else {
        // Whatever was queued behind this commit continues a revision that does not exist.
        prebuilt.drop(chain);
        if (out.error) {
          // The commit may or may not have applied: the head is unknown, so the artifact is retired.
          chain = { pouchId: chain.pouchId, artifactId: rng.uuid(), head: null, applied: 0 };
          replaced++;
        }
      }
      free.push(chain);
      return out;
    },
    async prepare() {
      // Only free artifacts: a leased one's next base is the answer still in flight.
      const idle = free.slice(freeHead);
      if (prebuilt.limit === 0 || idle.length === 0) return;
      await prebuilt.fill(idle, build);
    },
    stats: () => ({ commitsApplied, artifactsRetired: replaced, ...(prebuilt.limit > 0 ? prebuilt.stats() : {}) }),
  };
}

export default defineScenario({
  name: 'commit-throughput',
  description: 'unique, validly signed commits that continue their artifacts\' revision chains; each is expected to apply',
  unit: 'ops',
  params: [...COMMIT_PARAMS, PREBUILD_PARAM],
  createSource: (ctx) => commitSource(ctx),
});
