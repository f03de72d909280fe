/**
 * A generated request made safe for a shared target: fresh ids at execution time (in the generated
 * case form), and the profile's listed ids where the run's readings say only listed ones exist (the
 * model marks those parameters, `listedUnder`; pouches follow the one pouch policy, `pouchPlan`).
 * Broken values (a violation's label) stay as they are.
 */
import { freshUuid, freshen, type Params, type RequestSample } from '../gen/index.ts';
import { ENDPOINT_BY_ID, listedParams, PATTERNS, type EndpointId, type ListedKind } from '../spec/index.ts';
import type { Profile } from '../target/profile.ts';
import { pouchPlan } from '../target/pouches.ts';
import type { CaseContext } from './property.ts';

const isUuid = (v: string | undefined): v is string => v !== undefined && PATTERNS.uuid.regex.test(v);

/** The ids a profile lists for each kind the model can ask for. */
function listOf(profile: Profile, kind: ListedKind): readonly string[] {
  switch (kind) {
    case 'pouch':
      return profile.pouchIds;
    case 'cli-request':
      return profile.cliRequestIds;
    case 'browser':
      return profile.browserIds;
    default:
      return kind satisfies never;
  }
}

function pick(ctx: CaseContext, list: readonly string[]): string | undefined {
  if (list.length === 0) return undefined;
  return list[parseInt(ctx.uuid().slice(0, 8), 16) % list.length];
}

export function prepare(ctx: CaseContext, endpoint: EndpointId, sample: RequestSample): RequestSample {
  const fresh = freshen(endpoint, { params: sample.params, body: sample.body });
  const params: Params = { ...fresh.params };
  for (const { name, listedUnder } of listedParams(ENDPOINT_BY_ID[endpoint])) {
    if (!isUuid(params[name])) continue;
    let listed: string | undefined;
    if (listedUnder.list === 'pouch') {
      const plan = pouchPlan({ assumptions: ctx.assumptions, pouchIds: ctx.profile.pouchIds });
      listed = plan.kind === 'listed' ? pick(ctx, plan.ids) : undefined;
    } else if (ctx.assumptions[listedUnder.assumption] === listedUnder.reading) {
      listed = pick(ctx, listOf(ctx.profile, listedUnder.list));
    }
    params[name] = listed ?? freshUuid(params[name]);
  }
  return { params, body: fresh.body };
}
