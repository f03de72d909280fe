/**
 * Operation mixes: a weighted choice, and a source made of several weighted sources (k6's scenario
 * weights, Gatling's randomSwitch). Each request comes from a part drawn by weight; when that part
 * has nothing to send right now (every artifact leased), the next part in order that has is used,
 * so a busy part never stalls the run. Its answer, checks and stats go back to the part it came from.
 */
import { must } from '../spec/index.ts';
import type { Rng } from './rng.ts';
import type { CheckResult, LoadRequest, RequestSource } from './scenario.ts';

/** Throws a one-line Error unless every weight is a finite number ≥ 0 and one is positive. */
export function checkWeights(weights: readonly number[], what = 'mix'): void {
  const bad = weights.findIndex((w) => !Number.isFinite(w) || w < 0);
  if (bad >= 0) throw new Error(`${what}: weight ${bad + 1} must be a non-negative number, got ${weights[bad]}`);
  if (!weights.some((w) => w > 0)) throw new Error(`${what}: at least one weight must be positive`);
}

/** Draws an index with probability weight/sum, from the scenario's seeded rng. */
export function weightedPick(rng: Rng, weights: readonly number[]): () => number {
  checkWeights(weights);
  const sum = weights.reduce((a, w) => a + w, 0);
  const last = weights.findLastIndex((w) => w > 0);
  return () => {
    let u = rng.float() * sum;
    // An index loop: this runs once per request of a load run, where an iterator's allocations show.
    for (let i = 0; i <= last; i++) if ((u -= weights[i]) < 0 && weights[i] > 0) return i;
    // Rounding may leave u a hair above zero after the last positive weight.
    return last;
  };
}

export interface MixPart {
  /** Prefixes the part's checks and stats (`name: check`, `name.stat`). */
  readonly name: string;
  readonly weight: number;
  readonly source: RequestSource;
}

export function mixSources(rng: Rng, parts: readonly MixPart[]): RequestSource {
  const live = parts.filter((p) => p.weight > 0);
  const pick = weightedPick(rng, live.map((p) => p.weight));
  const owner = new WeakMap<LoadRequest, RequestSource>();
  return {
    next() {
      const first = pick();
      // Every part from the one drawn, wrapping round: by index, since a copy of the list per request would show.
      for (let k = 0; k < live.length; k++) {
        const p = live[(first + k) % live.length];
        const r = p.source.next();
        if (r) {
          owner.set(r, p.source);
          return r;
        }
      }
      return undefined;
    },
    complete: (req, res) => must(owner.get(req), 'a request completed by a mix is one the mix handed out').complete(req, res),
    async prepare() {
      for (const p of live) await p.source.prepare?.();
    },
    async check(send) {
      const all: CheckResult[] = [];
      for (const p of live) if (p.source.check) all.push(...(await p.source.check(send)).map((c) => ({ ...c, name: `${p.name}: ${c.name}` })));
      return all;
    },
    stats() {
      const out: Record<string, number> = {};
      for (const p of live) for (const [k, v] of Object.entries(p.source.stats?.() ?? {})) out[`${p.name}.${k}`] = v;
      return out;
    },
  };
}
