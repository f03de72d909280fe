/**
 * Section 2: the resources, table by table. Statement (2.3) and Key envelope (2.4) exist in two
 * forms because their length and alphabet constraints hold only inside the revoke roster (2.8);
 * everywhere else their fields are plain strings and `key_gen` a plain integer.
 */
import { arr, int, nullable, obj, oneOf, optional, optionalNullable, str, uuid, type Infer } from './model.ts';

/** 2.5: the six operation types. */
export const OP_TYPES = ['create', 'update', 'rename', 'delete', 'restore', 'resolve'] as const;
export type OpType = (typeof OP_TYPES)[number];

/**
 * The state rule a careful server may add where section 3 shows no states ("States and transitions:
 * not shown"): a restore takes a deleted artifact, every other type after the create a live one. The
 * registry's only `op-semantics` reading (base-only) checks none of it, so the harness keeps its valid
 * batches to it (generators, properties) and names it when a refusal rests on it (the commit model).
 * The reference serves its own copy (unnamed `live-state`): the judges and the server they check do not
 * agree by construction.
 */
export function keepsLiveState(type: unknown, deleted: boolean): boolean {
  return type !== 'create' && deleted === (type === 'restore');
}

/** Whether an artifact is deleted once an op of this type applied to it: the state `keepsLiveState` reads. */
export const deletes = (type: unknown): boolean => type === 'delete';

/** 2.6: the only result status listed. */
export const RESULT_STATUSES = ['applied'] as const;

/** 2.1 Common response envelope. `data` is replaced per operation by `envelopeOf`. */
export const ResponseMeta = obj('meta', '2.1', {
  request_id: str(),
  next_cursor: optionalNullable(str()),
});

/** 2.3 Statement, outside the roster: two plain strings. */
export const Statement = obj('Statement', '2.3', {
  statement: str(),
  signature: str(),
});

/** 2.3 Statement inside the revoke roster. */
export const RosterStatement = obj('Statement (roster)', '2.3', {
  statement: str({ length: 'rosterStatementLength', charset: 'base64url' }),
  signature: str({ length: 'rosterSignatureLength', charset: 'base64url' }),
});

export type StatementValue = Infer<typeof Statement>;

/** 2.4 Key envelope, outside the roster. */
export const KeyEnvelope = obj('KeyEnvelope', '2.4', {
  pouch_id: uuid(),
  member_id: uuid(),
  key_gen: int(),
  hpke_enc: str(),
  ciphertext: str(),
  created_by_member: uuid(),
  signature: str(),
});

export type KeyEnvelopeValue = Infer<typeof KeyEnvelope>;

/** 2.4 Key envelope inside the revoke roster. */
export const RosterKeyEnvelope = obj('KeyEnvelope (roster)', '2.4', {
  pouch_id: uuid(),
  member_id: uuid(),
  key_gen: int('keyGen'),
  hpke_enc: str({ length: 'rosterHpkeEncLength', charset: 'base64url' }),
  ciphertext: str({ length: 'rosterCiphertextLength', charset: 'base64url' }),
  created_by_member: uuid(),
  signature: str({ length: 'rosterSignatureLength', charset: 'base64url' }),
});

/** 2.5 Pouch operation. `base_revision_id` is required but nullable. */
export const PouchOperation = obj('PouchOperation', '2.5', {
  type: oneOf(OP_TYPES),
  artifact_id: uuid({ fresh: 'mint' }),
  revision_id: uuid({ fresh: 'mint' }),
  base_revision_id: nullable(uuid({ fresh: 'follow' })),
  merge_parent_id: optionalNullable(uuid({ fresh: 'follow' })),
  name_index: optionalNullable(str({ length: 'nameIndexLength', charset: 'base64url' })),
  conflict_id: optionalNullable(uuid()),
  key_gen: int('keyGen'),
  envelope: str({ length: 'envelopeLength', charset: 'base64url', mayBeEmpty: true }),
  signature: str({ length: 'opSignatureLength', charset: 'base64url' }),
  signer_member_id: uuid(),
  blob_ids: arr(str(), 'blobIdsPerOp'),
});

/** One item of a commit's `ops` (2.5). */
export type PouchOperationValue = Infer<typeof PouchOperation>;

/** 2.6 Operation result. Section 7 leaves statuses other than `applied` not shown (`conflict-behaviour`). */
export const OperationResult = obj('OperationResult', '2.6', {
  status: oneOf(RESULT_STATUSES, { othersNotShown: 'conflict-behaviour' }),
  artifact_id: uuid(),
  revision_id: uuid(),
  seq: int('resultInteger'),
  high_water: int('resultInteger'),
});

/** One item of a commit's `data.results` (2.6). */
export type OperationResultValue = Infer<typeof OperationResult>;

/** 2.7 Usage row. Counters are bounded only above. */
export const UsageRow = obj('UsageRow', '2.7', {
  input: int('usageCounter'),
  output: int('usageCounter'),
  cache_read: int('usageCounter'),
  cache_write: int('usageCounter'),
  day: str({ pattern: 'day' }),
  assistant: str({ length: 'assistantLength', charset: 'assistant' }),
  model: str({ length: 'modelLength' }),
});

/** A usage row as sent and held (2.7). */
export type UsageRowValue = Infer<typeof UsageRow>;

/** The four counters of a usage row: what "total" is made of (assumption `usage-row-key`). */
export const USAGE_COUNTERS = ['input', 'output', 'cache_read', 'cache_write'] as const;

/** 2.8 Roster (revoke request). `key_envelopes` defaults to empty. */
export const Roster = obj('Roster', '2.8', {
  statements: arr(RosterStatement, 'rosterStatements'),
  key_envelopes: optional(arr(RosterKeyEnvelope, 'rosterKeyEnvelopes')),
});


/** The revoke request's roster (2.8); its statements and envelopes have the roster's limits. */
export type RosterValue = Infer<typeof Roster>;
