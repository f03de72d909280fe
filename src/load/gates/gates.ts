/**
 * What a load run is judged by beyond its own thresholds: a capacity search's objective
 * (capacity.ts) and a stored baseline with relative thresholds (baseline.ts). Everything is
 * checked before any target is started; then the run (or the search) goes, and the comparison
 * is attached to its result.
 */
import { checkBaseline, compareWithBaseline, isRelativeThreshold, parseRelativeThreshold, readBaseline, withBaseline, type BaselineRun, type RelativeThreshold } from './baseline.ts';
import { capacityPlan, findCapacity, type CapacityOptions } from './capacity.ts';
import { LoadUsageError, runLoad, type RunLoadOptions, type RunLoadOutput } from '../launch.ts';

export interface GateInput {
  /** `--threshold` as given: absolute ones, and signed ones relative to the baseline. */
  readonly thresholds: readonly string[];
  /** Path of a stored load.json or of its run directory. */
  readonly baseline?: string;
  /** The capacity search's objective (`--find-capacity`). */
  readonly findCapacity?: string;
  readonly maxRate?: number;
  readonly stepMs?: number;
}

export interface Gates {
  readonly absolute: readonly string[];
  readonly relative: readonly RelativeThreshold[];
  readonly baseline?: BaselineRun;
  readonly capacity?: Pick<CapacityOptions, 'objective' | 'maxRate' | 'stepMs'>;
}

export async function prepareGates(scenario: string, i: GateInput): Promise<Gates> {
  const relative = i.thresholds.filter(isRelativeThreshold).map(parseRelativeThreshold);
  const absolute = i.thresholds.filter((t) => !isRelativeThreshold(t));
  if (relative.length > 0 && i.baseline === undefined) {
    throw new LoadUsageError(`threshold "${relative[0].source}" is relative: it needs a run to compare with, --baseline PATH/load.json`);
  }
  if (i.findCapacity === undefined && (i.maxRate !== undefined || i.stepMs !== undefined)) {
    throw new LoadUsageError(`${i.maxRate !== undefined ? '--max-rate' : '--step-duration'} belongs to a capacity search: add --find-capacity 'p99<50ms'`);
  }
  const capacity = i.findCapacity === undefined ? undefined : {
    objective: i.findCapacity,
    ...(i.maxRate !== undefined ? { maxRate: i.maxRate } : {}),
    ...(i.stepMs !== undefined ? { stepMs: i.stepMs } : {}),
  };
  if (capacity) capacityPlan(capacity);
  const baseline = i.baseline === undefined ? undefined : await readBaseline(i.baseline);
  if (baseline) checkBaseline(baseline, scenario, relative, capacity !== undefined);
  return { absolute, relative, ...(baseline ? { baseline } : {}), ...(capacity ? { capacity } : {}) };
}

/** The run (or capacity search, `o.rate` its start rate and `o.durationMs` its budget), compared with the baseline. */
export async function runGated(o: RunLoadOptions, g: Gates): Promise<RunLoadOutput> {
  const out = g.capacity
    ? await findCapacity({ ...o, thresholds: g.absolute }, {
      ...g.capacity,
      ...(o.rate !== undefined ? { startRate: o.rate } : {}),
      ...(o.durationMs !== undefined ? { budgetMs: o.durationMs } : {}),
    })
    : await runLoad({ ...o, thresholds: g.absolute });
  return g.baseline ? { ...out, result: withBaseline(out.result, compareWithBaseline(out.result, g.baseline, g.relative)) } : out;
}
