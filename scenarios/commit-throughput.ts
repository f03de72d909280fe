/**
 * commit-throughput (4.2): every request is a unique, validly signed commit continuing its
 * artifact's revision chain, so each is expected to apply. An artifact is leased to one request at
 * a time, so chains never race each other; each worker owns its own artifacts. Reports commits/s,
 * ops/s applied (goodput) and every commit not applied with its reason.
 */
import { CommitBuilder, makeChains, type ArtifactChain, type BuiltCommit, type CommitShape } from '../src/load/bodies.ts';
import { callerOf, commitRequest, judgeCommit, pouchesFor } from '../src/load/requests.ts';
import { Rng } from '../src/load/rng.ts';
import { num, text, type LoadRequest, type ParamDef, type Params, type RequestSource, type Scenario, type SourceContext } from '../src/load/scenario.ts';
import { LIMITS } from '../src/spec/index.ts';

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

/** A source of commits that should all apply; also used by cost-curve and mixed. */
export function commitSource(ctx: SourceContext, kind = 'commit'): RequestSource {
  const rng = new Rng(ctx.seed);
  const member = text(ctx.params, 'member') === 'browser' ? 'browser' : 'device';
  const caller = callerOf(ctx.profile, member, rng.uuid());
  const builder = new CommitBuilder({ rng, shape: shapeOf(ctx.params), signerMemberId: caller.memberId, signer: caller.signer });
  const pouches = pouchesFor(ctx.profile, rng, num(ctx.params, 'pouches'));
  const perWorker = Math.max(ctx.connections, Math.ceil(num(ctx.params, 'artifacts') / ctx.workers));
  const chains = makeChains(rng, pouches, perWorker);
  const free: ArtifactChain[] = [...chains];
  let freeHead = 0;
  let replaced = 0;
  let commitsApplied = 0;

  return {
    next(): LoadRequest | undefined {
      if (freeHead >= free.length) return undefined;
      const chain = free[freeHead++]!;
      if (freeHead > 1024 && freeHead * 2 > free.length) {
        free.splice(0, freeHead);
        freeHead = 0;
      }
      return commitRequest(caller, builder.build(chain), kind);
    },
    complete(req, res) {
      const built = req.token as BuiltCommit;
      const out = judgeCommit(res, built.ops);
      let chain = built.chain;
      if (out.ok) {
        chain.head = built.finalRevision;
        chain.applied++;
        commitsApplied++;
      } else if (out.error) {
        // The commit may or may not have applied: the head is unknown, so the artifact is retired.
        chain = { pouchId: chain.pouchId, artifactId: rng.uuid(), head: null, applied: 0 };
        replaced++;
      }
      free.push(chain);
      return out;
    },
    stats: () => ({ commitsApplied, artifactsRetired: replaced }),
  };
}

const scenario: Scenario = {
  name: 'commit-throughput',
  description: 'unique, validly signed commits that continue their artifacts\' revision chains; each is expected to apply',
  unit: 'ops',
  params: COMMIT_PARAMS,
  createSource: (ctx) => commitSource(ctx),
};
export default scenario;
