/**
 * Section 5 and section 1 ("access to pouches is held by members"): every endpoint refuses a
 * request without credentials or with wrong ones, and one account's device cannot change another
 * account's pouch. How callers authenticate is not shown, so both rest on registry readings.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { expectRejected } from '../src/check/judge.ts';
import { PASS, defineProperty, type Outcome, type Property } from '../src/check/property.ts';
import { ENDPOINTS, type EndpointId } from '../src/spec/index.ts';
import { commit, createArtifacts, extend, op, pouchFor, proveNothingApplied } from './support/commits.ts';
import { plainRequest, prepare } from './support/requests.ts';

type Credentials = 'none' | 'wrong-token' | 'malformed-scheme' | 'other-kind';

// 5 + credentials-required: a request is served only for a caller the target knows.
const credentialsRequired = defineProperty({
  id: 'auth.credentials-required',
  section: '5',
  invariant: 'Every endpoint refuses a request without credentials, with a wrong token, or with a malformed Authorization header.',
  assumptions: ['credentials-required', 'caller-auth'],
  needs: ['browser', 'device'],
  arbitrary: () =>
    fc.record({
      endpoint: fc.constantFrom<EndpointId>(...ENDPOINTS.map((e) => e.id)),
      credentials: fc.constantFrom<Credentials>('none', 'wrong-token', 'malformed-scheme'),
    }),
  async check(ctx, c) {
    const s = prepare(ctx, c.endpoint, plainRequest(c.endpoint));
    const headers: Record<string, string | undefined> =
      c.credentials === 'wrong-token'
        ? { authorization: `Bearer ${randomBytes(24).toString('base64url')}` }
        : c.credentials === 'malformed-scheme'
          ? { authorization: `Basic ${randomBytes(12).toString('base64')}` }
          : {};
    const ex = await ctx.call({ endpoint: c.endpoint, params: s.params, body: s.body, ...(c.credentials === 'none' ? { as: 'anonymous' as const } : { headers }) });
    const what = `${c.endpoint} ${c.credentials === 'none' ? 'without credentials' : `with ${c.credentials}`}`;
    const refused = expectRejected(ex, { what, assumption: 'credentials-required' });
    if (!refused.ok || c.endpoint !== 'commitOperations') return refused;
    // A refused commit applies nothing: its artifact is still free.
    const body = s.body as { ops: { artifact_id: string }[] };
    return proveNothingApplied(ctx, s.params['pouchId']!, body.ops.slice(0, 1).map((o) => ({ artifact: o.artifact_id })), what);
  },
});

// 1 + cross-account-isolation: a pouch is its account's; another account's device cannot change it.
const crossAccount = defineProperty({
  id: 'auth.cross-account',
  section: '1',
  invariant: 'A device of a second account cannot commit to the first account\'s pouch: refused, and the pouch is unchanged.',
  assumptions: ['cross-account-isolation', 'pouch-existence'],
  needs: ['device', 'second-account'],
  arbitrary: () => fc.constantFrom('update', 'create', 'delete'),
  async check(ctx, kind): Promise<Outcome> {
    const pouch = pouchFor(ctx);
    const { artifacts, outcome } = await createArtifacts(ctx, pouch, 1);
    if (outcome) return outcome;
    const a = artifacts[0]!;
    const foreign =
      kind === 'create'
        ? op(ctx, { type: 'create', artifact: ctx.uuid(), revision: ctx.uuid(), base: null })
        : op(ctx, { type: kind, artifact: a.id, revision: ctx.uuid(), base: a.head });
    const ex = await commit(ctx, pouch, [foreign], { as: { account: 'secondary', member: 'device' } });
    const refused = expectRejected(ex, { what: `the second account's device committing a ${kind} to the first account's pouch`, assumption: 'cross-account-isolation' });
    if (!refused.ok) return refused;
    const moved = await extend(ctx, pouch, a, 'the owner updating its head after the foreign attempt');
    if (!moved.ok) return moved;
    return kind === 'create' ? proveNothingApplied(ctx, pouch.id, [{ artifact: String(foreign['artifact_id']) }], 'the foreign create') : PASS;
  },
});

const AUTH: readonly Property[] = [credentialsRequired, crossAccount];
export default AUTH;
