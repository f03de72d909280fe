/**
 * The send loop of one worker, split as k6 splits its executors: one module per load model, each
 * validating its own configuration, over a shared run (engine-run.ts) and a shared sender:
 * - closed (executor-closed.ts): a fixed or staged number of connections, each sending its next
 *   request as soon as the previous one answers; latency measured from the actual send.
 * - open (executor-open.ts): request i is due at its scheduled time whatever happened before (a
 *   constant or staged arrival rate); latency measured from that intended time.
 * Memory is fixed: two HdrHistograms (all requests, failed ones), one bucket per second, one queue of
 * due times, and at most one capped response body per connection (sender.ts).
 */
import { performance } from 'node:perf_hooks';
import { startAbortSampler } from './abort.ts';
import { wallNow, type EngineOptions, type EngineResult, type LoadModel } from './engine-options.ts';
import { EngineRun } from './engine-run.ts';
import { shareClosed, startClosed, validateClosed } from './executor-closed.ts';
import { shareOpen, startOpen, validateOpen } from './executor-open.ts';
import { Sender } from '../http1/sender.ts';
import { warmUp } from './warmup.ts';

export {
  CONTROL_ABORTED_BY, CONTROL_COMPLETED, CONTROL_STOP, END_GRACE_MS, newControl,
  type AbortedBy, type ClosedModel, type EngineClock, type EngineOptions, type EngineResult, type LoadModel, type OpenModel,
} from './engine-options.ts';

/** Throws a one-line RangeError when the model's configuration cannot run (each model checks its own). */
export function validateModel(model: LoadModel, connections: number, durationMs: number): void {
  switch (model.kind) {
    case 'open':
      return validateOpen(model, durationMs);
    case 'closed':
      return validateClosed(model, connections, durationMs);
    default:
      return model satisfies never;
  }
}

/** Part `i` of `parts` of the model: a worker's share of its process's, a shard's of the whole run's. */
export function shareModel(model: LoadModel, parts: number, i: number): LoadModel {
  switch (model.kind) {
    case 'open':
      return shareOpen(model, parts);
    case 'closed':
      return shareClosed(model, parts, i);
    default:
      return model satisfies never;
  }
}

function startModel(run: EngineRun, model: LoadModel): void {
  switch (model.kind) {
    case 'open':
      return startOpen(run, model);
    case 'closed':
      return startClosed(run, model);
    default:
      return model satisfies never;
  }
}

export async function runEngine(o: EngineOptions): Promise<EngineResult> {
  validateModel(o.model, o.connections, o.durationMs);
  const sender = new Sender(o.baseUrl, o.connections, o.timeoutMs, o.responseCapBytes, o.route);
  if (o.warmupMs && o.warmupMs > 0) await warmUp(sender, o, o.warmupMs);
  const p0 = performance.now();
  await o.source.prepare?.();
  const prepareMs = performance.now() - p0;
  const t0 = o.ready ? await o.ready() : wallNow();
  const wait = t0 - wallNow();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  const run = new EngineRun(o, sender, t0);
  const elu0 = performance.eventLoopUtilization();
  sender.measure(o.observer);
  const started = wallNow();
  const stopSampling = startAbortSampler(run);
  startModel(run, o.model);
  await run.done;
  stopSampling();
  const wallMs = wallNow() - started;
  const loopUtilization = performance.eventLoopUtilization(elu0).utilization;
  return run.result({ wallMs, prepareMs, loopUtilization });
}
