/**
 * cost-curve (4.2): sweeps ops per batch, envelope size and blob ids per op one axis at a time (the
 * others at their base values), measuring latency and throughput at each point, and flags an axis
 * whose latency grows worse than linearly (src/load/stats/growth.ts).
 */
import { LIMITS } from '../src/spec/index.ts';
import { defineScenario, num, text, type ParamDef, type Params, type SweepPoint } from '../src/load/index.ts';
import { COMMIT_PARAMS, commitSource } from './commit-throughput.ts';

export const AXES = { ops: 'ops', envelope: 'envelope', blobs: 'blobs' } as const;

const AXIS_MAX: Record<string, (p: Params) => number> = {
  ops: () => LIMITS.opsPerCommit.max ?? 1,
  envelope: (p) => num(p, 'envelopeMax'),
  blobs: () => LIMITS.blobIdsPerOp.max ?? 0,
};
const AXIS_MIN: Record<string, number> = { ops: LIMITS.opsPerCommit.min ?? 1, envelope: 0, blobs: 0 };

/** The smallest value, then max/2^(points-1) … max/2, max. */
export function axisValues(axis: string, p: Params): number[] {
  const max = AXIS_MAX[axis]!(p);
  const n = num(p, 'points');
  const vals = new Set<number>([AXIS_MIN[axis]!]);
  for (let k = n - 1; k >= 0; k--) vals.add(Math.max(AXIS_MIN[axis]!, Math.round(max / 2 ** k)));
  return [...vals].sort((a, b) => a - b);
}

// Four ops per batch by default: per-op costs then stand out from the per-request overhead.
const base: Record<string, number> = { ops: 4, envelope: 64, blobs: 0 };

export default defineScenario({
  name: 'cost-curve',
  description: 'sweeps ops per batch, envelope size and blob ids per op; flags latency growing worse than linearly',
  unit: 'ops',
  defaultConnections: 1,
  params: [
    ...COMMIT_PARAMS.map((p): ParamDef => (p.name in base ? { ...p, default: base[p.name]!, description: `${p.description} (base value while another axis is swept)` } : p)),
    { name: 'axes', description: 'axes to sweep, comma-separated: ops, envelope, blobs', default: 'ops,envelope,blobs', kind: 'string' },
    { name: 'points', description: 'points per axis besides the smallest (geometric, ending at the maximum)', default: 4, kind: 'int', min: 2, max: 12 },
    { name: 'envelopeMax', description: 'largest envelope swept', default: 65_536, kind: 'int', min: 16, max: LIMITS.envelopeLength.max },
  ],
  sweep(p: Params): SweepPoint[] {
    const axes = text(p, 'axes').split(',').map((s) => s.trim()).filter(Boolean);
    const unknown = axes.filter((a) => !(a in AXES));
    if (unknown.length || axes.length === 0) throw new Error(`cost-curve axes must be among ${Object.keys(AXES).join(', ')}; got "${text(p, 'axes')}"`);
    return axes.flatMap((axis) => axisValues(axis, p).map((value) => ({ axis, value, params: { ...p, [axis]: value } })));
  },
  createSource: (ctx) => commitSource(ctx, 'commit'),
});
