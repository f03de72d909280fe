// Worker threads start as plain Node: register tsx's loader first, then load the TypeScript entry.
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.entry);
