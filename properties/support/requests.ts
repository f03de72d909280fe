/**
 * Sending generated requests to a live target: fresh identities at execution time and listed ids
 * where the readings require them (`prepare`), the plain request of each endpoint, and the judge of
 * a request the spec allows (`mustAccept`: controls before blame, see src/check/judge/controls.ts).
 */
import { judgeServed, type ServedOptions } from '../../src/check/judge/controls.ts';
import { plainRequest } from '../../src/check/model/plain.ts';
import { prepare } from '../../src/check/run/index.ts';
import type { CaseContext, Outcome } from '../../src/check/property.ts';
import type { RequestSample } from '../../src/gen/index.ts';
import type { EndpointId } from '../../src/spec/index.ts';
import type { Exchange } from '../../src/target/client.ts';

export type Sample = RequestSample;
export { plainRequest, prepare };

export function send(ctx: CaseContext, endpoint: EndpointId, sample: Sample, extra: { rawBody?: Uint8Array | string } = {}): Promise<Exchange> {
  const s = prepare(ctx, endpoint, sample);
  return ctx.call({ endpoint, params: s.params, body: s.body, ...extra });
}

export function sendPlain(ctx: CaseContext, endpoint: EndpointId): Promise<Exchange> {
  return send(ctx, endpoint, plainRequest(endpoint));
}

/** Judges the answer to a prepared request the spec allows. */
export function mustAccept(ctx: CaseContext, endpoint: EndpointId, ex: Exchange, prepared: Sample, o: ServedOptions): Promise<Outcome> {
  return judgeServed(ctx, endpoint, prepared, ex, o);
}
