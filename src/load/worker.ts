/** Worker-thread entry: runs one job and posts its output (or a one-line error) to the parent. */
import { parentPort, workerData } from 'node:worker_threads';
import { runJob, type JobSpec } from './job.ts';
import { ScenarioSourceError } from './define.ts';

// The parent hands every worker its job (workers.ts); the thread has no other way in.
const job = (workerData as { job: JobSpec }).job;
if (!parentPort) throw new Error('src/load/worker.ts runs only as a worker thread');
const parent = parentPort;
// Ready → parent; the parent answers with the shared start time once every worker is ready.
const ready = (): Promise<number> =>
  new Promise((resolve) => {
    parent.once('message', (m: { startAt: number }) => resolve(m.startAt));
    parent.postMessage({ ready: true });
  });

runJob(job, ready, { live: (live) => parent.postMessage({ live }), abort: (abort) => parent.postMessage({ abort }) }).then(
  (output) => parent.postMessage({ output }),
  // The scenario's own failure is its author's input (exit 4 in the parent), told apart across the thread boundary.
  (e: unknown) => parent.postMessage({ error: e instanceof Error ? e.message : String(e), ...(e instanceof ScenarioSourceError ? { scenario: true } : {}) }),
);
