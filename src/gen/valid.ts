/**
 * Valid requests per endpoint. Most samples are small and edge-biased (`arbitraryOf`); one in
 * `1 + boundaryOdds` puts ONE bounded field exactly at its min or max (a 699051-character envelope,
 * 50 ops, 2000 blob ids), so expensive maxima are exercised without every sample carrying them.
 * `maxRequest` is the explicit "everything at its maximum at once" generator (a commit is ~40 MB).
 */
import fc from 'fast-check';
import { ENDPOINT_BY_ID, type Endpoint, type EndpointId } from '../spec/index.ts';
import type { ArbitraryOptions } from './arbitrary.ts';
import { bodyArbitrary, paramsArbitrary } from './body.ts';
import { limitBoundaries } from './boundaries.ts';
import { objectValue, type JsonObject, type Params } from './json.ts';

export interface ValidOptions extends ArbitraryOptions {
  /** Mix in one-field-at-a-bound samples (default true unless `mode`, `lengths` or `counts` is given). */
  readonly boundaries?: boolean;
  /** Plain samples per boundary sample (default 4). */
  readonly boundaryOdds?: number;
}

export interface ValidRequest {
  readonly params: Params;
  readonly body: JsonObject;
}

function idOf(e: Endpoint | EndpointId): EndpointId {
  const id = typeof e === 'string' ? e : e.id;
  if (!ENDPOINT_BY_ID[id]) throw new Error(`unknown endpoint "${id}"`);
  return id;
}

function wantsBoundaries(opts: ValidOptions): boolean {
  return opts.boundaries ?? (opts.mode === undefined && opts.lengths === undefined && opts.counts === undefined);
}

export function validRequest(endpoint: Endpoint | EndpointId, opts: ValidOptions = {}): fc.Arbitrary<ValidRequest> {
  const id = idOf(endpoint);
  const plain = fc.record({ params: paramsArbitrary(id, opts), body: bodyArbitrary(id, opts) });
  const boundaries = wantsBoundaries(opts) ? limitBoundaries(id) : undefined;
  if (!boundaries) return plain;
  const bounded = boundaries.map((b) => ({ params: b.params, body: objectValue(b.body, 'a boundary body') }));
  return fc.oneof({ weight: opts.boundaryOdds ?? 4, arbitrary: plain }, { weight: 1, arbitrary: bounded });
}

export function validBody(endpoint: Endpoint | EndpointId, opts: ValidOptions = {}): fc.Arbitrary<JsonObject> {
  return validRequest(endpoint, opts).map((r) => r.body);
}

export function validParams(endpoint: Endpoint | EndpointId, opts: ArbitraryOptions = {}): fc.Arbitrary<Params> {
  return paramsArbitrary(idOf(endpoint), opts);
}

/** Every length, count and integer at its maximum, every optional field present, at once. */
export function maxRequest(endpoint: Endpoint | EndpointId): fc.Arbitrary<ValidRequest> {
  const id = idOf(endpoint);
  return fc.record({ params: paramsArbitrary(id, { mode: 'max' }), body: bodyArbitrary(id, { mode: 'max' }) });
}

export function maxBody(endpoint: Endpoint | EndpointId): fc.Arbitrary<JsonObject> {
  return maxRequest(endpoint).map((r) => r.body);
}
