/**
 * Where commit probes commit, and how they sign: settled first, by sending one create in each JWS
 * form (`jws-form`) to a fresh pouch id and, when both are refused, to a pouch the profile lists
 * (`pouch-existence`). Every later commit probe builds on the form and pouch rule found here.
 */
import { DEFAULT_ASSUMPTIONS, type ReadingOf } from '../spec/index.ts';
import type { JwsForm } from '../crypto/index.ts';
import { commitOutcome, type BatchFate } from '../check/judge/commit-outcome.ts';
import { commit, op, signerId, type CommitOptions, type SignForm } from './build.ts';
import type { DiscoveryEnv, Scope } from './env.ts';
import { choicesOf, decide, notObservable, unknown, type ProbeResult } from './result.ts';

export interface CommitBase extends SignForm {
  /** A pouch id to commit to: fresh when commits create pouches, else one the profile lists. */
  pouch(): string;
  /** Two different pouches, or undefined when only one is available. */
  twoPouches(): readonly [string, string] | undefined;
}

export const NO_DEVICE = 'the profile has no command-line device with deviceId and privateJwk (accounts.primary.device), so no commit can be signed';

/** Creates one fresh artifact in `pouchId` (`how`: as the browser, without the header…): its fate. */
export async function createOne(scope: Scope, what: string, pouchId: string, form: SignForm, how: CommitOptions = {}): Promise<BatchFate> {
  const env = scope.env;
  const o = op('create', env.uuid(), env.uuid(), null, signerId(env));
  const ex = await commit(scope, what, pouchId, [o], form, how);
  return commitOutcome(ex, [o], DEFAULT_ASSUMPTIONS).batch;
}

const FORMS: readonly JwsForm[] = choicesOf('jws-form');

function pick<T>(list: readonly T[]): T {
  // callers pass a non-empty list; the index is within it
  return list[Math.floor(Math.random() * list.length)]!;
}

function baseOf(env: DiscoveryEnv, form: JwsForm, existence: ReadingOf<'pouch-existence'>): CommitBase {
  const listed = env.profile.pouchIds;
  return {
    jwsForm: form,
    pouch: () => (existence === 'created-on-commit' ? env.uuid() : pick(listed)),
    twoPouches: () => {
      if (existence === 'created-on-commit') return [env.uuid(), env.uuid()];
      if (listed.length < 2) return undefined;
      const a = pick(listed);
      return [a, pick(listed.filter((x) => x !== a))];
    },
  };
}

/** Sends one create per JWS form to `pouchId`; which forms applied, or undefined when an answer tells nothing. */
async function tryForms(scope: Scope, pouchId: string, where: string): Promise<JwsForm[] | undefined> {
  const fates = await Promise.all(FORMS.map((f) => createOne(scope, `a create in a ${where} pouch, signed with the ${f} JWS form`, pouchId, { jwsForm: f })));
  if (fates.some((f) => f === 'unknown' || f === 'partial')) return undefined;
  return FORMS.filter((_, i) => fates[i] === 'applied');
}

/** One create in a fresh pouch from the account's browser, unsigned: its fate, or undefined without a browser. */
function browserCreate(scope: Scope): Promise<BatchFate | undefined> {
  if (!scope.env.identity('browser')) return Promise.resolve(undefined);
  return createOne(scope, 'a create in a fresh pouch from the browser, without Service-Signature', scope.env.uuid(), { jwsForm: 'digest-payload' }, { browser: true, header: { value: undefined } });
}

export interface CommitAccess {
  readonly results: ProbeResult[];
  readonly base?: CommitBase;
  /** Why commit probes cannot run, when `base` is absent. */
  readonly why?: string;
}

export async function probeCommitAccess(scope: Scope): Promise<CommitAccess> {
  const env = scope.env;
  if (!env.signer()) {
    return { results: [notObservable('jws-form', NO_DEVICE), notObservable('pouch-existence', NO_DEVICE)], why: NO_DEVICE };
  }
  const conclude = (forms: JwsForm[], existence: ReadingOf<'pouch-existence'>): CommitAccess => {
    // Both forms verifying leaves nothing to tell apart: the harness may sign in either, and signs in the default.
    const form = forms.includes('digest-payload') ? 'digest-payload' : forms[0];
    const jws = decide('jws-form', [form], scope.evidence, forms.length > 1 ? 'both forms verified' : undefined);
    return { results: [jws, decide('pouch-existence', [existence], scope.evidence)], base: baseOf(env, form, existence) };
  };
  const fresh = await tryForms(scope, env.uuid(), 'fresh');
  if (fresh === undefined) {
    const why = 'a commit was answered with a 5xx, no answer or an unreadable result';
    return { results: [unknown('jws-form', why, scope.evidence), unknown('pouch-existence', why, scope.evidence)], why };
  }
  if (fresh.length > 0) return conclude(fresh, 'created-on-commit');
  const listed = env.profile.pouchIds;
  if (listed.length === 0) {
    // 4.2 asks no signature of a browser: its create in a fresh pouch, applied, shows that a fresh pouch
    // takes a commit, so what the device's were refused for is their signature, in either form.
    if ((await browserCreate(scope)) === 'applied') {
      const why = 'a create in a fresh pouch is refused in both JWS forms from the device, and applied from the browser, which 4.2 does not ask to sign: no form the harness signs in verifies';
      return { results: [unknown('jws-form', why, scope.evidence), decide('pouch-existence', ['created-on-commit'], scope.evidence)], why };
    }
    const why = 'a create in a fresh pouch is refused in both JWS forms, and the profile lists no pouchIds to tell a missing pouch from a refused signature';
    return { results: [unknown('jws-form', why, scope.evidence), unknown('pouch-existence', why, scope.evidence)], why };
  }
  const inListed = await tryForms(scope, pick(listed), 'listed');
  if (inListed && inListed.length > 0) return conclude(inListed, 'must-exist');
  const why = 'no create the harness builds is applied, in a fresh pouch or a listed one, in either JWS form';
  return { results: [unknown('jws-form', why, scope.evidence), unknown('pouch-existence', why, scope.evidence)], why };
}
