/**
 * The account operations: approve a CLI device (4.1), register a passkey (4.4), revoke a browser
 * (4.5), change the master password (4.6). Statements and key envelopes are opaque here (their
 * encoding is not shown): only their shape, and inside the revoke roster their stated limits, are
 * checked; their signatures are not verified.
 */
import { randomUUID } from 'node:crypto';
import type { BugCheck } from './bugs.ts';
import { HttpError, type Ctx, type Reply } from './http-types.ts';
import type { Json, JsonObject } from './json.ts';
import { array, b64, fail, integer, isObject, isUuid, MAX_SAFE, member, object, required, string, text, uuid } from './validate.ts';

const ROSTER = { statement: 87382, signature: 342, hpkeEnc: 342, ciphertext: 5462, statements: 16, envelopes: 2000 } as const;

/** 2.3: plain strings, with the alphabet and limits only inside the roster. */
function statement(v: Json, path: string, roster: boolean, bug: BugCheck): void {
  const o = object(v, path);
  const st = required(o, 'statement', path, bug);
  const sig = bug('2.3-4') ? (member(o, 'signature', bug) ?? '') : required(o, 'signature', path, bug);
  if (roster) {
    b64(st, `${path}.statement`, bug('2.3-1') ? ROSTER.statement + 2 : ROSTER.statement, bug);
    const sigOver = bug('2.3-2') ? (s: string) => s.length >= ROSTER.signature : (s: string) => s.length > ROSTER.signature;
    if (sigOver(b64(sig, `${path}.signature`, Number.MAX_SAFE_INTEGER, bug))) fail(`${path}.signature`, 'too long');
  } else if (bug('2.3-3')) {
    b64(st, `${path}.statement`, ROSTER.statement, bug);
  } else {
    string(st, `${path}.statement`);
    string(sig, `${path}.signature`);
  }
}

function rosterEnvelopeFields(o: JsonObject, path: string, bug: BugCheck): void {
  integer(required(o, 'key_gen', path, bug), `${path}.key_gen`, bug, bug('2.4-2') ? 0n : 1n, MAX_SAFE);
  b64(required(o, 'hpke_enc', path, bug), `${path}.hpke_enc`, ROSTER.hpkeEnc, bug);
  b64(required(o, 'ciphertext', path, bug), `${path}.ciphertext`, bug('2.4-4') ? ROSTER.ciphertext + 2 : ROSTER.ciphertext, bug);
  b64(required(o, 'signature', path, bug), `${path}.signature`, ROSTER.signature, bug);
}

function plainEnvelopeFields(o: JsonObject, path: string, bug: BugCheck): void {
  const keyGen = required(o, 'key_gen', path, bug);
  if (bug('2.4-3')) integer(keyGen, `${path}.key_gen`, bug, 1n, MAX_SAFE);
  else integer(keyGen, `${path}.key_gen`, bug);
  string(required(o, 'hpke_enc', path, bug), `${path}.hpke_enc`);
  const ct = required(o, 'ciphertext', path, bug);
  if (bug('2.4-5')) b64(ct, `${path}.ciphertext`, ROSTER.ciphertext, bug);
  else string(ct, `${path}.ciphertext`);
  string(required(o, 'signature', path, bug), `${path}.signature`);
}

/** 2.4. */
function keyEnvelope(v: Json, path: string, roster: boolean, bug: BugCheck): void {
  const o = object(v, path);
  uuid(required(o, 'pouch_id', path, bug), `${path}.pouch_id`, bug);
  uuid(required(o, 'member_id', path, bug), `${path}.member_id`, bug);
  const by = required(o, 'created_by_member', path, bug);
  if (bug('2.4-1')) string(by, `${path}.created_by_member`);
  else uuid(by, `${path}.created_by_member`, bug);
  if (roster) rosterEnvelopeFields(o, path, bug);
  else plainEnvelopeFields(o, path, bug);
}

function keyEnvelopes(v: Json, path: string, bug: BugCheck, max?: number): void {
  const items = array(v, path, bug, undefined, max);
  items.forEach((e, i) => {
    if (bug('K-ARR-5') && !isObject(e)) return;
    keyEnvelope(e, `${path}[${i}]`, max === ROSTER.envelopes, bug);
  });
}

function pathId(ctx: Ctx, skip: boolean): string {
  const raw = ctx.params['id']!;
  if (!skip && !isUuid(raw, ctx.bug)) fail('path.id', 'not a UUID (2.2)');
  return raw.toLowerCase();
}

export function approveDevice(ctx: Ctx): Reply {
  const bug = ctx.bug;
  const id = pathId(ctx, bug('4.1-1') && ctx.params['id']!.length === 36);
  const o = object(ctx.body, 'body');
  statement(required(o, 'statement', 'body', bug), 'body.statement', false, bug);
  const welcome = bug('K-REQ-1') ? member(o, 'welcome', bug) : required(o, 'welcome', 'body', bug);
  if (welcome !== undefined && !(bug('K-REQ-3') && welcome !== null)) string(welcome, 'body.welcome');
  const envelopes = bug('4.1-2') ? (member(o, 'key_envelopes', bug) ?? []) : required(o, 'key_envelopes', 'body', bug);
  keyEnvelopes(envelopes, 'body.key_envelopes', bug, bug('4.1-5') ? ROSTER.envelopes : undefined);
  const code = member(o, 'confirm_code', bug);
  if (code !== undefined && !(code === null && bug('K-REQ-2'))) string(code, 'body.confirm_code');
  if (ctx.state.approvals.has(id)) throw new HttpError(409, 'conflict', 'this request was already approved');
  const deviceId = bug('4.1-3') ? ctx.caller.account.id : randomUUID();
  ctx.state.approvals.set(id, { account: ctx.caller.account, deviceId });
  ctx.caller.account.headSeq++;
  return { data: bug('4.1-4') ? { deviceId } : { device_id: deviceId } };
}

export function registerPasskey(ctx: Ctx): Reply {
  const bug = ctx.bug;
  const o = object(ctx.body, 'body');
  const response = required(o, 'response', 'body', bug);
  if (!(bug('4.4-2') && Array.isArray(response))) object(response, 'body.response');
  if (bug('4.4-1') && isObject(response) && ('__proto__' in response || 'constructor' in response)) fail('body.response', 'forbidden key');
  const label = member(o, 'label', bug);
  if (label !== undefined) string(label, 'body.label');
  statement(required(o, 'statement', 'body', bug), 'body.statement', false, bug);
  const envelopes = member(o, 'key_envelopes', bug);
  if (envelopes !== undefined) keyEnvelopes(envelopes, 'body.key_envelopes', bug, bug('4.4-3') ? ROSTER.envelopes : undefined);
  ctx.caller.account.headSeq++;
  return { data: bug('4.4-4') ? null : { member_id: randomUUID() } };
}

/** 2.8: returns whether the roster brings key envelopes (a rotation already done). */
function roster(v: Json, bug: BugCheck): boolean {
  const o = object(v, 'body.roster');
  const statements = array(required(o, 'statements', 'body.roster', bug), 'body.roster.statements', bug, 1, bug('2.8-1') ? 17 : ROSTER.statements);
  statements.forEach((s, i) => {
    statement(s, `body.roster.statements[${i}]`, true, bug);
  });
  // Absent means the default, empty; null is not stated as allowed.
  const given = member(o, 'key_envelopes', bug);
  const envelopes = bug('2.8-2') ? required(o, 'key_envelopes', 'body.roster', bug) : given === undefined ? [] : given;
  keyEnvelopes(envelopes, 'body.roster.key_envelopes', bug, ROSTER.envelopes);
  return Array.isArray(envelopes) && envelopes.length > 0;
}

function reason(v: Json, bug: BugCheck): void {
  if (bug('8-1')) {
    if (JSON.stringify(string(v, 'body.reason')).length - 2 > 200) fail('body.reason', 'longer than 200 characters');
    return;
  }
  text(v, 'body.reason', bug, 0, bug('4.5-3') ? 255 : 200);
}

/**
 * Revoking an id this server has never seen is accepted and remembered for the caller's account (ids
 * are the client's; an unknown browser is one that never logged in here); another account's browser
 * is not found.
 */
export function revokeBrowser(ctx: Ctx): Reply {
  const bug = ctx.bug;
  const raw = ctx.params['id']!;
  if (bug('4.5-1') && raw !== raw.toLowerCase()) fail('path.id', 'not a UUID (2.2)');
  const id = pathId(ctx, bug('K-UUID-8'));
  const o = object(ctx.body, 'body');
  const r = member(o, 'roster', bug);
  const rotated = r === undefined || (r === null && bug('4.5-2')) ? false : roster(r, bug);
  const why = member(o, 'reason', bug);
  if (why !== undefined) reason(why, bug);
  const known = ctx.state.browsers.get(id);
  if (known && known.account !== ctx.caller.account) throw new HttpError(404, 'not_found', 'no such browser');
  const b = known ?? { account: ctx.caller.account, revoked: false };
  b.revoked = true;
  ctx.state.browsers.set(id, b);
  if (b.token !== undefined && !bug('4.5-4')) ctx.state.byToken.delete(b.token);
  ctx.caller.account.headSeq++;
  return { data: { revoked: bug('4.5-5') ? 'true' : true, rotation_pending: !rotated } };
}

export function changeUnlock(ctx: Ctx): Reply {
  const bug = ctx.bug;
  const o = object(ctx.body, 'body');
  const statements = array(required(o, 'statements', 'body', bug), 'body.statements', bug, bug('4.6-1') ? 1 : undefined, bug('4.6-1') ? 16 : undefined);
  statements.forEach((s, i) => {
    statement(s, `body.statements[${i}]`, bug('4.6-1'), bug);
  });
  const envelopes = member(o, 'key_envelopes', bug);
  if (envelopes !== undefined) keyEnvelopes(envelopes, 'body.key_envelopes', bug);
  if (!bug('4.6-3')) ctx.caller.account.headSeq++;
  const head = ctx.caller.account.headSeq;
  return { data: { head_seq: bug('4.6-2') ? String(head) : head } };
}
