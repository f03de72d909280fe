/**
 * Probes of what 4.2 leaves open, each on fresh artifacts (and fresh pouches where commits create
 * them), judged by the one commit-fate judge (`commitOutcome`): a whole-request 4xx and a per-op
 * status other than applied are both "refused".
 */
import { DEFAULT_ASSUMPTIONS, isReading, type ReadingOf } from '../spec/index.ts';
import type { Exchange } from '../target/client.ts';
import { commitOutcome, type CommitOutcome } from '../check/judge/commit-outcome.ts';
import { resultsOf } from '../check/judge/judge.ts';
import { commit, op, signerId, type Op } from './build.ts';
import type { CommitBase } from './commit-base.ts';
import type { Scope } from './env.ts';
import { decide, notObservable, unknown, type ProbeResult, type ProbeResultOf } from './result.ts';

const fate = (ex: Exchange, ops: readonly Op[]): CommitOutcome => commitOutcome(ex, ops, DEFAULT_ASSUMPTIONS);

const create = (scope: Scope, artifact: string, revision = scope.env.uuid()): Op => op('create', artifact, revision, null, signerId(scope.env));

/** Sends a one-create setup commit; undefined when it applied, else why the probe cannot go on. */
async function setupCreate(scope: Scope, base: CommitBase, pouch: string, o: Op, what = 'setup: a create of a fresh artifact'): Promise<string | undefined> {
  const f = fate(await commit(scope, what, pouch, [o], base), [o]);
  return f.batch === 'applied' ? undefined : `the setup create was not applied (${f.answer})`;
}

/**
 * conflict-behaviour, conflict-status, batch-atomicity: `[fresh create X, create of existing Y]`,
 * then a create of X again tells whether X applied. 3 requests.
 */
export async function probeConflicts(scope: Scope, base: CommitBase): Promise<ProbeResult[]> {
  const names = ['conflict-behaviour', 'conflict-status', 'batch-atomicity'] as const;
  const allUnknown = (why: string): ProbeResult[] => names.map((n) => unknown(n, why, scope.evidence));
  const env = scope.env;
  const pouch = base.pouch();
  const y = env.uuid();
  const failed = await setupCreate(scope, base, pouch, create(scope, y), 'setup: a create of artifact Y');
  if (failed) return allUnknown(failed);
  const x = env.uuid();
  const batch = [create(scope, x), create(scope, y)];
  const ex = await commit(scope, 'a batch [create of fresh X, create of existing Y]', pouch, batch, base);
  const f = fate(ex, batch);
  const status = ex.response?.status ?? 0;
  let behaviour: ProbeResultOf<'conflict-behaviour'>;
  let conflictStatus: ProbeResultOf<'conflict-status'>;
  if (f.batch === 'refused' && status >= 400 && status < 500) {
    behaviour = decide('conflict-behaviour', ['reject-request'], scope.evidence);
    const code = String(status);
    conflictStatus = decide('conflict-status', isReading('conflict-status', code) ? ['any-4xx', code] : ['any-4xx'], scope.evidence, `answered ${code}`);
  } else if (f.batch === 'refused' && ex.verdict === 'rejected') {
    // The whole request refused, as an envelope with ok false under a 2xx (error-response=ok-false-any-status).
    behaviour = decide('conflict-behaviour', ['reject-request'], scope.evidence, `refused as a whole with ${status} and ok false`);
    conflictStatus = notObservable('conflict-status', 'the target refuses with a 2xx and ok false (error-response=ok-false-any-status): no 4xx status to read', scope.evidence);
  } else if (status >= 200 && status < 300 && f.ops[1] === 'refused') {
    behaviour = decide('conflict-behaviour', ['per-op-status'], scope.evidence, 'a 2xx with the conflicting op not applied');
    conflictStatus = notObservable('conflict-status', 'the target reports conflicts per op in a 2xx (conflict-behaviour=per-op-status): no refused commit to read a status from', scope.evidence);
  } else if (f.ops[1] === 'applied') {
    return allUnknown(`a create of an artifact that already exists was applied (${f.answer})`);
  } else return allUnknown(`the conflicting batch was answered ${f.answer}`);
  const again = create(scope, x);
  const g = fate(await commit(scope, 'a create of X again (applies only if X was not applied)', pouch, [again], base), [again]);
  const atomicity: ProbeResultOf<'batch-atomicity'> =
    g.batch === 'applied'
      ? decide('batch-atomicity', ['atomic'], scope.evidence)
      : g.batch === 'refused'
        ? decide('batch-atomicity', ['per-op'], scope.evidence, 'the valid op of a conflicting batch applied')
        : unknown('batch-atomicity', `the follow-up create was answered ${g.answer}`, scope.evidence);
  return [behaviour, conflictStatus, atomicity];
}

/** batch-chaining: `[create A r1, update A r1→r2]` in one batch. 1 request. */
export async function probeChaining(scope: Scope, base: CommitBase): Promise<ProbeResult[]> {
  const env = scope.env;
  const a = env.uuid();
  const r1 = env.uuid();
  const batch = [create(scope, a, r1), op('update', a, env.uuid(), r1, signerId(env))];
  const f = fate(await commit(scope, 'a batch [create A as r1, update A on base r1]', base.pouch(), batch, base), batch);
  if (f.batch === 'applied') return [decide('batch-chaining', ['chained'], scope.evidence)];
  if ((f.batch === 'refused' || f.batch === 'partial') && f.ops[1] === 'refused') return [decide('batch-chaining', ['pre-batch-heads'], scope.evidence, 'the update on the batch\'s own revision was refused')];
  return [unknown('batch-chaining', `the batch was answered ${f.answer}`, scope.evidence)];
}

/** revision-id-unique: a create of B with the revision id A's create used. 2 requests. */
export async function probeRevisionUnique(scope: Scope, base: CommitBase): Promise<ProbeResult[]> {
  const env = scope.env;
  const pouch = base.pouch();
  const r = env.uuid();
  const failed = await setupCreate(scope, base, pouch, create(scope, env.uuid(), r), 'setup: a create of artifact A as revision r');
  if (failed) return [unknown('revision-id-unique', failed, scope.evidence)];
  const b = create(scope, env.uuid(), r);
  const f = fate(await commit(scope, 'a create of fresh artifact B, also as revision r', pouch, [b], base), [b]);
  if (f.batch === 'applied') return [decide('revision-id-unique', ['per-artifact'], scope.evidence)];
  if (f.batch === 'refused') return [decide('revision-id-unique', ['per-pouch'], scope.evidence)];
  return [unknown('revision-id-unique', `the reuse was answered ${f.answer}`, scope.evidence)];
}

/**
 * operation-id-idempotency: a commit, the same commit again, and (when the replay is refused) the
 * same operation_id with other ops. 2-3 requests.
 */
export async function probeOperationId(scope: Scope, base: CommitBase): Promise<ProbeResult[]> {
  const env = scope.env;
  const pouch = base.pouch();
  const operationId = env.uuid();
  const epoch = env.uuid();
  const first = [create(scope, env.uuid())];
  const ex1 = await commit(scope, 'a create with operation_id O', pouch, first, base, { operationId, epoch });
  if (fate(ex1, first).batch !== 'applied') return [unknown('operation-id-idempotency', 'the first commit was not applied', scope.evidence)];
  const ex2 = await commit(scope, 'the same commit again (operation_id O)', pouch, first, base, { operationId, epoch });
  const replay = fate(ex2, first);
  if (replay.batch === 'applied') {
    const seqOf = (ex: Exchange): unknown => resultsOf(ex)[0]?.['seq'];
    if (seqOf(ex1) !== seqOf(ex2)) return [unknown('operation-id-idempotency', `the replay was applied with another seq (${String(seqOf(ex2))}, first ${String(seqOf(ex1))})`, scope.evidence)];
    return [decide('operation-id-idempotency', ['replay-first-result'], scope.evidence, 'the replay answered the first result')];
  }
  if (replay.batch !== 'refused') return [unknown('operation-id-idempotency', `the replay was answered ${replay.answer}`, scope.evidence)];
  const other = [create(scope, env.uuid())];
  const g = fate(await commit(scope, 'operation_id O again, with a create of another fresh artifact', pouch, other, base, { operationId, epoch }), other);
  if (g.batch === 'applied') return [decide('operation-id-idempotency', ['not-deduplicated'], scope.evidence, 'the replay was evaluated again; other ops under the same id applied')];
  if (g.batch === 'refused') return [decide('operation-id-idempotency', ['replay-rejected'], scope.evidence)];
  return [unknown('operation-id-idempotency', `operation_id O with other ops was answered ${g.answer}`, scope.evidence)];
}

/**
 * seq-semantics: a create in pouch A, one in pouch B, one in A again. Per pouch, A's seq rises by
 * exactly one; on one global counter, B's op (at least) lies between. 3 requests, run alone.
 */
export async function probeSeq(scope: Scope, base: CommitBase): Promise<ProbeResult[]> {
  const pouches = base.twoPouches();
  if (!pouches) return [notObservable('seq-semantics', 'needs two pouches, and the profile lists fewer than two pouchIds', scope.evidence)];
  const [a, b] = pouches;
  const seqIn = async (what: string, pouch: string): Promise<number | undefined> => {
    const o = create(scope, scope.env.uuid());
    const ex = await commit(scope, what, pouch, [o], base);
    if (fate(ex, [o]).batch !== 'applied') return undefined;
    const seq = resultsOf(ex)[0]?.['seq'];
    return typeof seq === 'number' && Number.isInteger(seq) ? seq : undefined;
  };
  const a1 = await seqIn('a create in pouch A', a);
  const b1 = await seqIn('a create in pouch B', b);
  const a2 = await seqIn('a create in pouch A again', a);
  if (a1 === undefined || b1 === undefined || a2 === undefined) return [unknown('seq-semantics', 'a create was not applied or its result carries no integer seq', scope.evidence)];
  const detail = `seq in A: ${a1} then ${a2}, in B between: ${b1}`;
  const consistent: ReadingOf<'seq-semantics'>[] = a2 === a1 + 1 ? ['per-pouch'] : a2 > a1 + 1 ? ['global'] : [];
  return [decide('seq-semantics', consistent, scope.evidence, detail)];
}

/**
 * cross-account-isolation: the second account's device creates a fresh artifact in a pouch the
 * first account holds; when that applies, the owner creating the same artifact tells a separate
 * pouch (applies) from a shared one (refused: section 1 rules that out). 2-3 requests.
 */
export async function probeCrossAccount(scope: Scope, base: CommitBase): Promise<ProbeResult[]> {
  const env = scope.env;
  if (!env.signer('secondary')) return [notObservable('cross-account-isolation', 'the profile has no second account with a signing device (accounts.secondary.device)')];
  const pouch = base.pouch();
  const failed = await setupCreate(scope, base, pouch, create(scope, env.uuid()), 'setup: the first account creates an artifact in pouch P');
  if (failed) return [unknown('cross-account-isolation', failed, scope.evidence)];
  const b = env.uuid();
  const theirs = [op('create', b, env.uuid(), null, signerId(env, 'secondary'))];
  const f = fate(await commit(scope, "the second account's device creates fresh artifact B in P", pouch, theirs, base, { account: 'secondary' }), theirs);
  if (f.batch === 'refused') return [decide('cross-account-isolation', ['refused'], scope.evidence)];
  if (f.batch !== 'applied') return [unknown('cross-account-isolation', `the other account's commit was answered ${f.answer}`, scope.evidence)];
  const mine = [create(scope, b)];
  const g = fate(await commit(scope, 'the first account creates B in P (applies only if P is its own pouch)', pouch, mine, base), mine);
  if (g.batch === 'applied') return [decide('cross-account-isolation', ['separate-pouch'], scope.evidence, "the other account's commit landed in a pouch of its own")];
  if (g.batch === 'refused') return [unknown('cross-account-isolation', "the other account's artifact landed in the owner's pouch (section 1: access to pouches is held by members)", scope.evidence)];
  return [unknown('cross-account-isolation', `the owner's follow-up create was answered ${g.answer}`, scope.evidence)];
}
