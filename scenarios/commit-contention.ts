/**
 * commit-contention (4.2): K writers (the connections) commit on the same few artifacts, chosen
 * with a Zipf skew, always building on the newest head they know. Concurrent commits on one head
 * must leave exactly one winner. Reports goodput and the conflict rate against the offered load,
 * and checks afterwards that no update was lost: every applied commit built on the head the one
 * before it produced (no two applied commits share a base), and a probe commit on the end of that
 * chain applies, so the server's head is the end of exactly the chain of applied commits.
 */
import {
  makeChains,
  type BuiltCommit,
  commitRequest,
  judgeCommit,
  zipfCdf,
  defineScenario,
  num,
  type CheckResult,
  type LoadRequest,
  type RequestSource,
  type SourceContext,
} from '../src/load/index.ts';
import { COMMIT_PARAMS, committer } from './commit-throughput.ts';

const overrides: Record<string, number> = { artifacts: 4, pouches: 1, blobs: 0, envelope: 64 };

export function contentionSource(ctx: SourceContext, kind = 'contention'): RequestSource {
  const { rng, caller, builder, pouches } = committer(ctx);
  const chains = makeChains(rng, pouches, Math.max(1, Math.ceil(num(ctx.params, 'artifacts') / ctx.workers)));
  const cdf = zipfCdf(chains.length, num(ctx.params, 'skew'));
  let applied = 0, conflicts = 0, lostUpdates = 0;
  const forks: string[] = [];
  // Artifacts where a commit failed in transit: it may have applied unseen, so no probe can judge them.
  const uncertain = new Set<string>();

  return {
    next(): LoadRequest {
      return commitRequest(caller, builder.build(chains[rng.skewed(cdf)]!), kind);
    },
    complete(req, res) {
      const built = req.token as BuiltCommit;
      const out = judgeCommit(res, built.ops);
      const chain = built.chain;
      if (out.ok) {
        applied++;
        // Built on a head that another applied commit had already moved past: two winners on one base.
        if (built.base !== chain.head) {
          lostUpdates++;
          if (forks.length < 5) forks.push(`artifact ${chain.artifactId}: commit on ${built.base ?? 'nothing (create)'} applied after the head had moved to ${chain.head}`);
        }
        chain.head = built.finalRevision;
        chain.applied++;
      } else if (out.error) uncertain.add(chain.artifactId);
      else conflicts++;
      return out;
    },
    async check(send): Promise<CheckResult[]> {
      let probesApplied = 0, probesRejected = 0;
      const bad: string[] = [];
      for (const chain of chains) {
        if (chain.head === null || uncertain.has(chain.artifactId)) continue;
        const built = builder.build(chain);
        const res = await send(commitRequest(caller, built, kind)).catch((e: Error) => e);
        if (judgeCommit(res, built.ops).ok) {
          probesApplied++;
          chain.head = built.finalRevision;
        } else {
          probesRejected++;
          if (bad.length < 5) bad.push(`artifact ${chain.artifactId}: a commit on the last applied revision ${built.base} was refused (${res instanceof Error ? res.message : `http ${res.status}`})`);
        }
      }
      const passed = lostUpdates === 0 && probesRejected === 0;
      const message = passed
        ? `no lost update: ${applied} applied commits form one chain per artifact, and a commit on each chain's end applies (${probesApplied} probes)`
        : `lost update: ${[...forks, ...bad].join('; ')}`;
      return [{ name: 'no lost update', passed, message, figures: { applied, lostUpdates, probesApplied, probesRejected } }];
    },
    stats: () => ({ applied, conflicts, lostUpdates }),
  };
}

export default defineScenario({
  name: 'commit-contention',
  description: 'K writers (the connections) commit on the same artifacts with a Zipf skew; checks that no update is lost',
  unit: 'ops',
  params: [
    ...COMMIT_PARAMS.map((p) => (p.name in overrides ? { ...p, default: overrides[p.name]! } : p)),
    { name: 'skew', description: 'Zipf exponent of the artifact choice (0: uniform)', default: 1, kind: 'number', min: 0, max: 10 },
  ],
  createSource: (ctx) => contentionSource(ctx),
});
