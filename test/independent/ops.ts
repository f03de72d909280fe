/** Validation of the operations commit body (4.2) and its items (2.5). */
import type { BugCheck } from './bugs.ts';
import type { Json, JsonObject } from './json.ts';
import { array, b64, fail, integer, MAX_SAFE, member, object, optionalUuid, required, string, uuid } from './validate.ts';

export const OP_TYPES = ['create', 'update', 'rename', 'delete', 'restore', 'resolve'] as const;
export type OpType = (typeof OP_TYPES)[number];

export interface Op {
  readonly type: OpType;
  readonly artifactId: string;
  readonly revisionId: string;
  readonly baseRevisionId: string | null;
}

export interface CommitBody {
  readonly operationId: string;
  readonly epoch: string;
  readonly ops: readonly Op[];
}

const ENVELOPE_MAX = 699051;
const SIGNATURE_MAX = 342;
const BLOB_IDS_MAX = 2000;
const OPS_MAX = 50;
const BODY_MEMBERS = ['operation_id', 'epoch', 'ops'];

function opType(v: Json, path: string, bug: BugCheck): OpType {
  let s = string(v, path);
  if (bug('K-ENUM-1')) s = s.toLowerCase();
  if (bug('K-ENUM-2')) s = s.trim();
  const listed: readonly string[] = bug('K-ENUM-4') ? OP_TYPES.filter((t) => t !== 'resolve') : OP_TYPES;
  if (listed.includes(s)) return s as OpType;
  if (bug('K-ENUM-3')) return 'update';
  return fail(path, `not one of ${OP_TYPES.join(', ')}`);
}

function envelope(v: Json, path: string, bug: BugCheck): void {
  if (bug('2.5-8') && typeof v === 'string') {
    // Re-validates the prefix for every 4 KiB chunk: quadratic in the envelope's length.
    for (let end = 4096; end < v.length; end += 4096) if (!/^[A-Za-z0-9_-]*$/.test(v.slice(0, end))) fail(path, 'bad character');
  }
  if (bug('2.5-9') && typeof v === 'string' && !/^([A-Za-z0-9_-]+)*$/.test(v)) fail(path, 'bad character');
  const s = b64(v, path, bug('2.5-7') ? ENVELOPE_MAX - 1 : ENVELOPE_MAX, bug);
  if (s === '' && bug('K-B64-8')) fail(path, 'empty');
}

function blobIds(v: Json, path: string, bug: BugCheck): void {
  const ids = array(v, path, bug, undefined, bug('2.5-11') ? 2048 : BLOB_IDS_MAX);
  ids.forEach((id, i) => {
    if (!bug('2.5-13')) string(id, `${path}[${i}]`);
    if (bug('2.5-12')) for (let j = 0; j < i; j++) if (ids[j] === id) fail(path, 'duplicate blob id');
  });
}

function nameIndex(o: JsonObject, path: string, bug: BugCheck): void {
  const v = member(o, 'name_index', bug);
  if (v === undefined || v === null) return;
  const s = b64(v, path, 43, bug);
  if (s.length !== 43 && !(bug('2.5-5') && s.length >= 42)) fail(path, 'not exactly 43 characters');
}

function optionalMembers(o: JsonObject, path: string, bug: BugCheck): void {
  if (bug('2.5-4') && member(o, 'merge_parent_id', bug) === undefined) fail(`${path}.merge_parent_id`, 'required');
  if (bug('K-REQ-6') && member(o, 'conflict_id', bug) === null) fail(`${path}.conflict_id`, 'must not be null');
  optionalUuid(o, 'merge_parent_id', path, bug);
  optionalUuid(o, 'conflict_id', path, bug);
  nameIndex(o, `${path}.name_index`, bug);
}

function op(v: Json, path: string, bug: BugCheck): Op {
  const o = object(v, path);
  const type = opType(required(o, 'type', path, bug), `${path}.type`, bug);
  const artifactId = uuid(required(o, 'artifact_id', path, bug), `${path}.artifact_id`, bug);
  const revisionId = uuid(required(o, 'revision_id', path, bug), `${path}.revision_id`, bug);
  const base = bug('2.5-3') ? (member(o, 'base_revision_id', bug) ?? null) : required(o, 'base_revision_id', path, bug);
  const baseRevisionId = base === null ? null : uuid(base, `${path}.base_revision_id`, bug);
  optionalMembers(o, path, bug);
  integer(required(o, 'key_gen', path, bug), `${path}.key_gen`, bug, bug('2.5-6') ? 0n : 1n, MAX_SAFE);
  envelope(required(o, 'envelope', path, bug), `${path}.envelope`, bug);
  const sig = bug('5.3-2') ? (member(o, 'signature', bug) ?? '') : required(o, 'signature', path, bug);
  const s = b64(sig, `${path}.signature`, bug('2.5-10') ? 344 : SIGNATURE_MAX, bug);
  if (bug('5.3-1') && s.length !== 86) fail(`${path}.signature`, 'does not verify');
  const signer = required(o, 'signer_member_id', path, bug);
  if (bug('2.5-2')) string(signer, `${path}.signer_member_id`);
  else uuid(signer, `${path}.signer_member_id`, bug);
  blobIds(required(o, 'blob_ids', path, bug), `${path}.blob_ids`, bug);
  return { type, artifactId, revisionId, baseRevisionId };
}

export function commitBody(v: Json, bug: BugCheck): CommitBody {
  const o = object(v, 'body');
  if (bug('K-REQ-5')) for (const k of Object.keys(o)) if (!BODY_MEMBERS.includes(k)) fail(`body.${k}`, 'unknown member');
  const opId = bug('4.2-2') ? (member(o, 'operation_id', bug) ?? '00000000-0000-0000-0000-000000000000') : required(o, 'operation_id', 'body', bug);
  const operationId = uuid(opId, 'body.operation_id', bug);
  const epoch = uuid(required(o, 'epoch', 'body', bug), 'body.epoch', bug);
  const list = array(required(o, 'ops', 'body', bug), 'body.ops', bug, 1, bug('4.2-3') ? 100 : OPS_MAX);
  if (bug('4.2-4')) for (let i = 0; i < list.length; i++) JSON.stringify(list);
  return { operationId, epoch, ops: list.map((x, i) => op(x, `body.ops[${i}]`, bug)) };
}
