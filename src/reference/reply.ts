/**
 * What a handler answers. A success's `data` has the endpoint's type from the spec model, unless
 * the answer leaves the spec on purpose (a fault's wrong answer, or a reading's answer the spec does
 * not list); then it is wrapped by `offSpec`, so every such site says so and nothing else compiles.
 */
import type { EndpointData, EndpointId } from '../spec/index.ts';
import type { FaultSet } from './faults.ts';

declare const OFF_SPEC: unique symbol;
/** `data` that is deliberately not of the endpoint's type; sent as is. */
export type OffSpec = { readonly [OFF_SPEC]: true };

/** Marks `data` as deliberately outside the endpoint's type (see the module comment). */
export const offSpec = (data: unknown): OffSpec => data as OffSpec;

/** A success: the envelope's `data` and the status (200 unless said otherwise). */
export interface Reply<Id extends EndpointId = EndpointId> {
  readonly status: number;
  readonly data: EndpointData<Id> | OffSpec;
}

function integersAsStrings(v: unknown): unknown {
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return v.map(integersAsStrings);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, integersAsStrings(x)]));
  return v;
}

/** `envelope-wrong-types`: every integer of `data` comes out as a string, as read from a bigint column. */
export function dataOut<D>(data: D | OffSpec, faults: FaultSet): D | OffSpec {
  return faults.has('envelope-wrong-types') ? offSpec(integersAsStrings(data)) : data;
}
