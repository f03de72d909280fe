// Worker threads start as plain Node. From a clone the entry is TypeScript: register tsx's loader
// first (a dev dependency, hence loaded only then); the built package's entry is plain JavaScript.
import { workerData } from 'node:worker_threads';

if (workerData.entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.entry);
