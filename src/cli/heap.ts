/**
 * How far V8's heap may grow past what is live. By default V8 lets its old generation grow to a few
 * times the live heap before a full collection: against a server answering garbage the live heap is
 * ~100 MB, and the heap grew to ~450 MB (573 MiB resident, the memory benchmark,
 * docs/benchmarks.md#memory). Half again over what is live keeps both benchmark targets near 300-350
 * MiB; a tenth (the bound before the live heap was cut) cost more collections for no lower peak.
 * The load engine is left to V8's default: its throughput is what it measures.
 */
import { setFlagsFromString } from 'node:v8';

/** Percent the heap may grow over the live heap after a full collection (V8's --heap-growing-percent). */
export const HEAP_GROWING_PERCENT = 50;

const FLAG = /^--heap[-_]growing[-_]percent\b/;

/**
 * Bounds the heap's growth for this process unless node was given its own bound (on its command line
 * or in NODE_OPTIONS, which win). V8 reads the flag at each full collection, so setting it now applies.
 */
export function boundHeapGrowth(execArgv: readonly string[] = process.execArgv, nodeOptions: string = process.env.NODE_OPTIONS ?? ''): boolean {
  if ([...execArgv, ...nodeOptions.split(/\s+/)].some((a) => FLAG.test(a))) return false;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
