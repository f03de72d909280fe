/**
 * mixed: a weighted blend of commit-throughput, commit-contention and usage-flood in one run, each
 * with its default parameters and its own invariant checks (the mix of src/load/mix.ts).
 */
import { Rng, defineScenario, mixSources, resolveParams, text, type RequestSource, type Scenario, type SourceContext } from '../src/load/index.ts';
import contention, { contentionSource } from './commit-contention.ts';
import throughput, { commitSource } from './commit-throughput.ts';
import usage, { usageSource } from './usage-flood.ts';

const PARTS: Record<string, { scenario: Scenario; make: (ctx: SourceContext) => RequestSource }> = {
  'commit-throughput': { scenario: throughput, make: (c) => commitSource(c, 'commit-throughput') },
  'commit-contention': { scenario: contention, make: (c) => contentionSource(c, 'commit-contention') },
  'usage-flood': { scenario: usage, make: (c) => usageSource(c, 'usage-flood') },
};

/** "commit-throughput:70,usage-flood:20,commit-contention:10" → weights; throws a one-line Error. */
export function parseWeights(s: string): Array<{ name: string; weight: number }> {
  const out = s.split(',').map((part) => {
    const [name, w] = part.split(':').map((x) => x.trim());
    const weight = Number(w);
    if (!name || !(name in PARTS)) throw new Error(`mixed: unknown part "${name}"; parts: ${Object.keys(PARTS).join(', ')}`);
    if (!Number.isFinite(weight) || weight < 0) throw new Error(`mixed: weight of ${name} must be a non-negative number`);
    return { name, weight };
  });
  if (!out.some((x) => x.weight > 0)) throw new Error('mixed: at least one weight must be positive');
  return out;
}

export default defineScenario({
  name: 'mixed',
  description: 'a weighted blend of commit-throughput, commit-contention and usage-flood',
  unit: 'units',
  params: [{ name: 'weights', description: 'part:weight,…', default: 'commit-throughput:70,usage-flood:20,commit-contention:10', kind: 'string' }],
  createSource(ctx) {
    const parts = parseWeights(text(ctx.params, 'weights'))
      .filter((w) => w.weight > 0)
      .map((w, i) => {
        const p = PARTS[w.name]!;
        // Every part gets its share of the connections as writers, at least one.
        const connections = Math.max(1, Math.round(ctx.connections * w.weight / 100));
        return { ...w, source: p.make({ ...ctx, seed: (ctx.seed + 7919 * (i + 1)) >>> 0, connections, params: resolveParams(p.scenario) }) };
      });
    return mixSources(new Rng(ctx.seed ^ 0x5bd1e995), parts);
  },
});
