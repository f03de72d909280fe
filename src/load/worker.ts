/** Worker-thread entry: runs one job and posts its output (or a one-line error) to the parent. */
import { parentPort, workerData } from 'node:worker_threads';
import { runJob, type JobSpec } from './job.ts';
import { ScenarioSourceError } from './define.ts';

const job = (workerData as { job: JobSpec }).job;
// Ready → parent; the parent answers with the shared start time once every worker is ready.
const ready = (): Promise<number> =>
  new Promise((resolve) => {
    parentPort!.once('message', (m: { startAt: number }) => resolve(m.startAt));
    parentPort!.postMessage({ ready: true });
  });

runJob(job, ready, { live: (live) => parentPort!.postMessage({ live }), abort: (abort) => parentPort!.postMessage({ abort }) }).then(
  (output) => parentPort!.postMessage({ output }),
  // The scenario's own failure is its author's input (exit 4 in the parent), told apart across the thread boundary.
  (e: unknown) => parentPort!.postMessage({ error: e instanceof Error ? e.message : String(e), ...(e instanceof ScenarioSourceError ? { scenario: true } : {}) }),
);
