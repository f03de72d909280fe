/**
 * A generated request made safe for a shared target: fresh ids at execution time (in the generated
 * case form), and the profile's listed ids where the run's readings say only listed ones exist
 * (the path parameters the model marks `listedUnder`). Broken values (a violation's label) stay as
 * they are.
 */
import { freshUuid, freshen, type Params, type RequestSample } from '../../gen/index.ts';
import { ENDPOINT_BY_ID, PATTERNS, listedParams, type EndpointId, type ListedUnder } from '../../spec/index.ts';
import { pouchPlan } from '../../target/pouches.ts';
import type { CaseContext } from '../property.ts';

const isUuid = (v: string | undefined): v is string => v !== undefined && PATTERNS.uuid.regex.test(v);

/** One of `list`, drawn from the case's own seed. */
export function pickListed(ctx: CaseContext, list: readonly string[]): string | undefined {
  if (list.length === 0) return undefined;
  return list[parseInt(ctx.uuid().slice(0, 8), 16) % list.length];
}

/**
 * The ids a listed parameter is drawn from under the run's readings; empty when any id may name the
 * thing (then a fresh one). For pouches the decision is `pouchPlan`'s: a property that must commit
 * declares the capability `pouch` and is skipped when no pouch is usable; a sweep over every
 * endpoint sends a fresh pouch id, and its refusal is judged as the environment.
 */
function listedIds(ctx: CaseContext, l: ListedUnder): readonly string[] {
  switch (l.list) {
    case 'pouch': {
      const plan = pouchPlan({ assumptions: ctx.steering ?? ctx.assumptions, pouchIds: ctx.profile.pouchIds });
      return plan.kind === 'listed' ? plan.ids : [];
    }
    case 'cli-request':
      return ctx.assumptions[l.assumption] === l.reading ? ctx.profile.cliRequestIds : [];
    case 'browser':
      return ctx.assumptions[l.assumption] === l.reading ? ctx.profile.browserIds : [];
    default:
      return l.list satisfies never;
  }
}

export function prepare(ctx: CaseContext, endpoint: EndpointId, sample: RequestSample): RequestSample {
  const fresh = freshen(endpoint, { params: sample.params, body: sample.body });
  const params: Params = { ...fresh.params };
  for (const { name, listedUnder } of listedParams(ENDPOINT_BY_ID[endpoint])) {
    const value = params[name];
    if (!isUuid(value)) continue;
    params[name] = pickListed(ctx, listedIds(ctx, listedUnder)) ?? freshUuid(value);
  }
  return { params, body: fresh.body };
}
