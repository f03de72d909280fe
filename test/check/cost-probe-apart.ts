/**
 * The cost probe kept out of the runs that share the cores with other test workers (the kill
 * matrix, its readings column, the side-by-side runs): its verdict is a latency, and beside another
 * worker it has both missed quadratic faults and raised false ones (vitest.config.ts `TIMED_TIER`).
 * What those runs leave out is judged in the timed group, one file at a time: the cost faults in
 * test/properties/cost-killers.test.ts and performance.test.ts, and the probe's silence on the
 * correct reference (over repetitions and in every reading) in performance.test.ts.
 */
import { ALL_PROPERTIES } from '../../properties/index.ts';
import type { Property } from '../../src/check/property.ts';
import { FAULTS } from '../../src/reference/index.ts';

/** A property whose verdict is a cost measured by latency or CPU time. */
export const isCostProperty = (p: Pick<Property, 'id'>): boolean => p.id.startsWith('performance.');

/** A fault only a cost property is expected to kill: no conformance property sees it. */
export const isCostFault = (f: { readonly expectedKillers: readonly string[] }): boolean => f.expectedKillers.every((k) => k.startsWith('performance.'));

/** The default suite without the cost probe. */
export const WITHOUT_COST_PROBE: readonly Property[] = ALL_PROPERTIES.filter((p) => !isCostProperty(p));

/** The catalogue's faults without the cost faults. */
export const FAULTS_WITHOUT_COST = FAULTS.filter((f) => !isCostFault(f));

/** The cost faults, which the timed group must kill. */
export const COST_FAULTS = FAULTS.filter(isCostFault);

/**
 * The load checks whose verdict is a latency (a p99 against the correct reference's, measured just
 * after): judged in the timed group too (test/load/latency-killers.test.ts). Beside a second worker
 * `load.open-model-p99` missed `stall-periodic` in a fresh-clone CI run (2026-11-28): the correct
 * reference's p99, measured on the same busy cores, explained the excess.
 */
export const LATENCY_LOAD_CHECKS: readonly string[] = ['load.open-model-p99'];

/** A fault only latency load checks are expected to kill. */
export const isLatencyLoadFault = (f: { readonly expectedKillers: readonly string[] }): boolean => f.expectedKillers.every((k) => LATENCY_LOAD_CHECKS.includes(k));

/** The catalogue's faults without the cost faults and those only a latency load check sees: what a run beside other workers can judge. */
export const FAULTS_BESIDE_A_WORKER = FAULTS_WITHOUT_COST.filter((f) => !isLatencyLoadFault(f));

/** The faults only a latency load check sees, which the timed group must kill. */
export const LATENCY_LOAD_FAULTS = FAULTS.filter(isLatencyLoadFault);
