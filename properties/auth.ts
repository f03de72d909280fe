/**
 * Section 5 and section 1: every endpoint refuses a request without credentials or with wrong ones
 * (how callers authenticate is not shown: a reading), and one account's device never changes what
 * another account's pouch holds — "Access to pouches is held by members", whatever the server does
 * with another account's pouch id (refuses it, or gives the caller a separate pouch: a reading).
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { assumptionMismatch, describeResponse, expectRejected, Notes, resultsOf, unexpected, violation } from '../src/check/judge/judge.ts';
import { READING_FREE, readingJudgement, specJudgement } from '../src/check/judge/judgements.ts';
import { PASS, defineProperty, notApplicable, type CaseContext, type Outcome, type Property } from '../src/check/property.ts';
import { ENDPOINTS, type EndpointId } from '../src/spec/index.ts';
import { absent, commit, createArtifacts, extend, fates, namesId, op, pouchFor, proveNothingApplied, setup, type Pouch } from './support/commits.ts';

const CREDENTIALS = readingJudgement('auth.credentials', 'A request without valid credentials is refused and applies nothing.', 'credentials-required', { reads: ['caller-auth', 'error-response', 'op-semantics', 'commit-results'] });
/** §1: only members change a pouch; a device of another account is none. */
// Judged by the owner's own next commit on its head, so what the server answers the other account
// (cross-account-isolation: refused, or a separate pouch) does not decide it: only how the owner's
// commit is answered does.
export const MEMBERS_ONLY = specJudgement('auth.members-only', 'A device of another account never changes what an account\'s pouch holds: its update does not apply there, its create does not appear there.', 'membersHoldPouches', {
  reads: ['pouch-existence', 'conflict-behaviour', 'op-semantics'],
});
/** §1 again: what a pouch holds is shown to its members; an answer to another account's commit names none of it. */
export const NOTHING_SHOWN = specJudgement('auth.nothing-shown', 'A commit of another account\'s device, whatever its operation_id, is answered about its own ops: its results name no artifact or revision of an account\'s pouch it never sent.', 'membersHoldPouches', READING_FREE);
const FOREIGN_ID = readingJudgement('auth.foreign-pouch-id', 'A commit to a pouch id another account holds is answered as the run reads (refused, or served from a separate pouch).', 'cross-account-isolation', { reads: ['op-semantics', 'commit-results'] });
import { plainRequest, prepare } from './support/requests.ts';

type Credentials = 'none' | 'wrong-token' | 'malformed-scheme' | 'other-kind';

// 5 + credentials-required: a request is served only for a caller the target knows.
const credentialsRequired = defineProperty({
  id: 'auth.credentials-required',
  section: '5',
  invariant: 'Every endpoint refuses a request without credentials, with a wrong token, or with a malformed Authorization header.',
  assumptions: ['credentials-required', 'caller-auth'],
  judgements: [CREDENTIALS],
  needs: ['browser', 'device', 'pouch'],
  arbitrary: () =>
    fc.record({
      endpoint: fc.constantFrom<EndpointId>(...ENDPOINTS.map((e) => e.id)),
      credentials: fc.constantFrom<Credentials>('none', 'wrong-token', 'malformed-scheme'),
    }),
  async check(ctx, c) {
    // Under credentials-required=open the endpoint serves anyone: nothing to refuse.
    if (ctx.assumptions['credentials-required'] === 'open') return notApplicable('under credentials-required=open every caller is served: there is nothing to refuse');
    const s = prepare(ctx, c.endpoint, plainRequest(c.endpoint));
    const headers: Record<string, string | undefined> =
      c.credentials === 'wrong-token'
        ? { authorization: `Bearer ${randomBytes(24).toString('base64url')}` }
        : c.credentials === 'malformed-scheme'
          ? { authorization: `Basic ${randomBytes(12).toString('base64')}` }
          : {};
    const ex = await ctx.call({ endpoint: c.endpoint, params: s.params, body: s.body, ...(c.credentials === 'none' ? { as: 'anonymous' as const } : { headers }) });
    const what = `${c.endpoint} ${c.credentials === 'none' ? 'without credentials' : `with ${c.credentials}`}`;
    const refused = expectRejected(ex, { what, blame: { assumption: 'credentials-required' } });
    if (!refused.ok || c.endpoint !== 'commitOperations') return refused;
    // A refused commit applies nothing: its artifact is still free.
    const body = s.body as { ops: { artifact_id: string; revision_id: string }[] };
    return proveNothingApplied(ctx, s.params['pouchId'], body.ops.slice(0, 1).map((o) => ({ artifact: o.artifact_id, revision: o.revision_id })), what, { assumption: 'credentials-required' });
  },
});

/**
 * 4.2's operation_id, reused by another account: the first account commits under an id, then the
 * second account's device commits its own create to a pouch of its own under the same id. A server
 * that remembers operation ids for the whole service (not per account and pouch) answers it as a
 * replay: refused, or given the first commit's results. Refused, the id is simply taken, which no
 * clause forbids; answered with the first account's artifact and revision ids, it shows a
 * non-member what the first account's pouch holds (§1).
 */
async function reusedOperationId(ctx: CaseContext, pouch: Pouch): Promise<Outcome> {
  const operationId = ctx.uuid();
  const a = { id: ctx.uuid(), head: ctx.uuid() };
  const mine = [op(ctx, { type: 'create', artifact: a.id, revision: a.head, base: null })];
  const first = await setup(ctx, pouch, await commit(ctx, pouch, mine, { operationId }), mine, 'creating 1 artifact');
  if (!first.ok) return first;
  const theirs = [op(ctx, { type: 'create', artifact: ctx.uuid(), revision: ctx.uuid(), base: null })];
  const what = `the second account's device committing a create to a pouch of its own under the operation_id of the first account's commit`;
  const ex = await commit(ctx, pouchFor(ctx), theirs, { as: { account: 'secondary', member: 'device' }, operationId });
  const u = unexpected(ex, what);
  if (u) return u;
  const shown = resultsOf(ex).filter((r) => namesId(r['artifact_id'], a.id) || namesId(r['revision_id'], a.head));
  if (shown.length === 0) return PASS;
  return violation(NOTHING_SHOWN, `${what}: answered ${describeResponse(ex)}, whose results name the first account's artifact ${a.id} (revision ${a.head}), which the second account never sent`);
}

// §1: a pouch is its members'; whatever another account's device is answered, it changes nothing there.
const crossAccount = defineProperty({
  id: 'auth.cross-account',
  section: '1',
  invariant: 'Under either reading of another account\'s pouch id (refused, or a separate pouch), a device of a second account never changes what the first account sees: its op on the owner\'s head does not move that head (the owner\'s next update on it applies), its create does not appear there.',
  assumptions: ['cross-account-isolation', 'conflict-behaviour', 'op-semantics', 'pouch-existence'],
  judgements: [MEMBERS_ONLY, NOTHING_SHOWN, FOREIGN_ID],
  needs: ['device', 'second-account', 'pouch'],
  arbitrary: () => fc.constantFrom('update', 'create', 'delete', 'operation-id'),
  async check(ctx, kind): Promise<Outcome> {
    const pouch = pouchFor(ctx);
    if (kind === 'operation-id') return reusedOperationId(ctx, pouch);
    const { artifacts, outcome } = await createArtifacts(ctx, pouch, 1);
    if (outcome) return outcome;
    const a = artifacts[0];
    const foreign =
      kind === 'create'
        ? op(ctx, { type: 'create', artifact: ctx.uuid(), revision: ctx.uuid(), base: null })
        : op(ctx, { type: kind, artifact: a.id, revision: ctx.uuid(), base: a.head });
    const ex = await commit(ctx, pouch, [foreign], { as: { account: 'secondary', member: 'device' } });
    const what = `the second account's device committing a ${kind} to the first account's pouch`;
    const u = unexpected(ex, what);
    if (u) return u;
    const f = fates(ctx, ex, [foreign]);
    const notes = new Notes();
    const reading = ctx.assumptions['cross-account-isolation'];
    if (kind !== 'create' && f.ops[0] === 'applied') {
      // Only the owner's pouch holds that artifact, so under either reading this should not apply;
      // whether it reached the owner's pouch (§1) is what the owner's view says next.
      notes.add(
        reading === 'refused'
          ? assumptionMismatch('cross-account-isolation', `${what}: applied (${f.answer}) instead of being refused; the owner's view is checked next`)
          : assumptionMismatch('op-semantics', `${what}: applied (${f.answer}), though the caller's own pouch holds no such artifact; the owner's view is checked next`),
      );
    }
    if (kind === 'create' && f.ops[0] === 'applied' && reading === 'refused') {
      notes.add(assumptionMismatch('cross-account-isolation', `${what}: applied (${f.answer}) instead of being refused; the owner's pouch is checked next`));
    }
    if (f.ops[0] === 'refused' && reading === 'separate-pouch' && kind === 'create') {
      notes.add(assumptionMismatch('cross-account-isolation', `${what}: refused (${f.answer}) instead of served from a separate pouch`));
    }
    // The owner's view: its artifact is still at the head it left, whatever the other account did.
    const moved = await extend(ctx, pouch, a, `the owner updating its head after ${what}${f.ops[0] === 'applied' ? ', which applied' : ''}`, { judgement: MEMBERS_ONLY }, [foreign.revision_id]);
    if (!moved.ok) return notes.result(moved);
    if (kind === 'create') {
      const free = await absent(ctx, pouch, String(foreign.artifact_id), 'the owner creating the artifact the foreign device created', { judgement: MEMBERS_ONLY }, [foreign.revision_id]);
      if (!free.ok) return notes.result(free);
    }
    return notes.result(PASS);
  },
});

const AUTH: readonly Property[] = [credentialsRequired, crossAccount];
export default AUTH;
