/**
 * A generated request made safe for a shared target: fresh ids at execution time (in the generated
 * case form), and the profile's listed ids where the run's readings say only listed ones exist.
 * Broken values (a violation's label) stay as they are.
 */
import { freshUuid, freshen, type Params, type RequestSample } from '../gen/index.ts';
import { PATTERNS, type EndpointId } from '../spec/index.ts';
import { ENVIRONMENT } from './environment.ts';
import type { CaseContext } from './property.ts';

const isUuid = (v: string | undefined): v is string => v !== undefined && PATTERNS.uuid.regex.test(v);

function pick(ctx: CaseContext, list: readonly string[]): string | undefined {
  if (list.length === 0) return undefined;
  return list[parseInt(ctx.uuid().slice(0, 8), 16) % list.length];
}

export function prepare(ctx: CaseContext, endpoint: EndpointId, sample: RequestSample): RequestSample {
  const fresh = freshen(endpoint, { params: sample.params, body: sample.body });
  const params: Params = { ...fresh.params };
  for (const [name, listing] of Object.entries(ENVIRONMENT[endpoint].listedParams)) {
    if (!isUuid(params[name])) continue;
    const listed = ctx.assumptions[listing.assumption] === listing.reading ? pick(ctx, ctx.profile[listing.profileField]) : undefined;
    params[name] = listed ?? freshUuid(params[name]);
  }
  return { params, body: fresh.body };
}
