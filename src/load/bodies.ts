/**
 * Fast, seeded builders for the request bodies of a load run. Every body is emitted directly in
 * canonical form (RFC 8785: keys sorted by UTF-16 code units, compact, ASCII strings and safe
 * integers only), so its bytes are what a canonicalizer would produce and the signer (target/signing.ts,
 * the conformance client's too) can hash them as sent without canonicalizing again. Every bound
 * comes from src/spec.
 */
import {
  CHARSETS,
  LIMITS,
  PouchOperation,
  UsageRow,
  commitOperations,
  reportUsage,
  utcDayOf,
  type OpType,
  type PouchOperationValue,
  type UsageKeyFields,
  type UsageRowValue,
} from '../spec/index.ts';
import type { BodySigner } from '../target/signing.ts';
import { type Rng, zipfCdf } from './rng.ts';

/** Serializes an object of the fields `keys` in canonical order; values are JSON-safe scalars or arrays of them. */
function canonicalWriter<T extends object>(keys: readonly (keyof T & string)[]): (o: T) => string {
  const sorted = [...keys].sort();
  // Each key's text both as the first member and after another one, so nothing is rewritten per call.
  const first = sorted.map((k) => `{${JSON.stringify(k)}:`);
  const later = sorted.map((k) => `,${JSON.stringify(k)}:`);
  return (o) => {
    let s = '';
    for (let i = 0; i < sorted.length; i++) {
      const v = o[sorted[i]];
      if (v === undefined) continue;
      s += (s === '' ? first[i] : later[i]) + JSON.stringify(v);
    }
    return s === '' ? '{}' : s + '}';
  };
}

/** The fields of a node, as keys of its inferred type (the model's field names are its type's keys). */
const fieldsOf = <T extends object>(fields: object): (keyof T & string)[] => Object.keys(fields) as (keyof T & string)[];

const COMMIT_FIELDS = Object.keys(commitOperations.body.fields);
const writeOp = canonicalWriter<PouchOperationValue>(fieldsOf(PouchOperation.fields));
const writeRow = canonicalWriter<UsageRowValue>(fieldsOf(UsageRow.fields));
// The commit body's top level: `ops` is spliced in as already-serialized text.
const COMMIT_ORDER = [...COMMIT_FIELDS].sort();
const COMMIT_KEY_TEXT = COMMIT_ORDER.map((k) => JSON.stringify(k));

/** An ES256 signature is 64 bytes: its base64url text, capped by the spec's limit. */
const OP_SIGNATURE_CHARS = Math.min(Math.ceil((64 * 4) / 3), LIMITS.opSignatureLength.max ?? Infinity);

export interface CommitShape {
  /** ops per batch, within LIMITS.opsPerCommit */
  readonly opsPerBatch: number;
  /** envelope characters per op, within LIMITS.envelopeLength */
  readonly envelopeSize: number;
  /** blob ids per op, within LIMITS.blobIdsPerOp */
  readonly blobIdsPerOp: number;
}

/** Checks a shape against the spec's limits; the message names the parameter. */
export function checkShape(shape: CommitShape): string | undefined {
  const within = (name: string, v: number, lim: { min?: number; max?: number }): string | undefined => {
    if (!Number.isInteger(v)) return `${name} must be an integer`;
    if (lim.min !== undefined && v < lim.min) return `${name} must be at least ${lim.min}`;
    if (lim.max !== undefined && v > lim.max) return `${name} must be at most ${lim.max}`;
    return undefined;
  };
  return (
    within('ops per batch', shape.opsPerBatch, LIMITS.opsPerCommit) ??
    within('envelope size', shape.envelopeSize, { min: 0, max: LIMITS.envelopeLength.max }) ??
    within('blob ids per op', shape.blobIdsPerOp, { min: 0, max: LIMITS.blobIdsPerOp.max })
  );
}

/** One artifact's revision chain as this generator knows it. */
export interface ArtifactChain {
  readonly pouchId: string;
  readonly artifactId: string;
  /** Current head revision; null before the create. */
  head: string | null;
  /** Commits applied on it (by this generator's knowledge). */
  applied: number;
}

export interface BuiltCommit {
  readonly pouchId: string;
  readonly chain: ArtifactChain;
  /** Revision the batch starts from (the first op's base). */
  readonly base: string | null;
  /** Revision the artifact is at when the whole batch applies. */
  readonly finalRevision: string;
  readonly ops: number;
  readonly body: string;
  readonly signature?: string;
}

export interface CommitBuilderOptions {
  readonly rng: Rng;
  readonly shape: CommitShape;
  readonly signerMemberId: string;
  /** Signs each body as built (its text is canonical by construction). */
  readonly signer?: BodySigner;
  /** One epoch for the whole run (the spec does not say what an epoch is). */
  readonly epoch?: string;
}

const CREATE: OpType = 'create';
const UPDATE: OpType = 'update';

/** Builds unique commits that continue a chain: a batch of n ops chains on one artifact. */
export class CommitBuilder {
  private readonly pool: string;
  private readonly epoch: string;
  private readonly epochJson: string;
  private readonly keyGen = LIMITS.keyGen.min ?? 1;

  constructor(private readonly o: CommitBuilderOptions) {
    const problem = checkShape(o.shape);
    if (problem) throw new RangeError(problem);
    // Envelopes are cut from one random text; only ids need to be unique.
    this.pool = o.rng.b64u(o.shape.envelopeSize + 1024);
    this.epoch = o.epoch ?? o.rng.uuid();
    this.epochJson = JSON.stringify(this.epoch);
  }

  get shape(): CommitShape {
    return this.o.shape;
  }

  /**
   * `from` is the revision the batch starts on: the chain's head by default, or, to build a commit
   * ahead of time, the final revision of the commit queued before it.
   */
  build(chain: ArtifactChain, shape: CommitShape = this.o.shape, from: string | null = chain.head): BuiltCommit {
    const { rng } = this.o;
    let base = from;
    let ops = '';
    for (let k = 0; k < shape.opsPerBatch; k++) {
      const revision = rng.uuid();
      const blobPrefix = rng.b64u(8);
      const blobIds = new Array<string>(shape.blobIdsPerOp);
      for (let j = 0; j < shape.blobIdsPerOp; j++) blobIds[j] = blobPrefix + j;
      const start = shape.envelopeSize === 0 ? 0 : rng.int(this.pool.length - shape.envelopeSize);
      const op: PouchOperationValue = {
        type: base === null ? CREATE : UPDATE,
        artifact_id: chain.artifactId,
        revision_id: revision,
        base_revision_id: base,
        key_gen: this.keyGen,
        envelope: this.pool.length >= shape.envelopeSize ? this.pool.slice(start, start + shape.envelopeSize) : rng.b64u(shape.envelopeSize),
        signature: rng.b64u(OP_SIGNATURE_CHARS),
        signer_member_id: this.o.signerMemberId,
        blob_ids: blobIds,
      };
      ops += (k === 0 ? '' : ',') + writeOp(op);
      base = revision;
    }
    const top: Record<string, string> = {
      operation_id: `"${rng.uuid()}"`,
      epoch: this.epochJson,
      ops: `[${ops}]`,
    };
    let body = '';
    for (let i = 0; i < COMMIT_ORDER.length; i++) {
      const v = top[COMMIT_ORDER[i]];
      if (v !== undefined) body += `${body === '' ? '{' : ','}${COMMIT_KEY_TEXT[i]}:${v}`;
    }
    body += '}';
    return {
      pouchId: chain.pouchId,
      chain,
      base: from,
      // the loop above runs at least once (opsPerBatch >= 1), setting base to the last revision
      finalRevision: base!,
      ops: shape.opsPerBatch,
      body,
      signature: this.o.signer?.signCanonical(body),
    };
  }
}

/** Artifacts spread over pouches, disjoint per worker because every id is drawn from its own seed. */
export function makeChains(rng: Rng, pouches: readonly string[], artifacts: number): ArtifactChain[] {
  const out: ArtifactChain[] = [];
  for (let i = 0; i < artifacts; i++) out.push({ pouchId: pouches[i % pouches.length], artifactId: rng.uuid(), head: null, applied: 0 });
  return out;
}

// ---- usage rows (4.3) ----

/** What names a usage row (the fields `usage-row-key` may use). */
export type UsageKey = UsageKeyFields;

const ASSISTANT_CHARS = CHARSETS.assistant.chars;

/** A small key space (days × assistants × models) that many sources report into, so rows overlap. */
export function usageKeySpace(rng: Rng, o: { days: number; assistants: number; models: number }): UsageKey[] {
  const base = Date.UTC(2026, 0, 1);
  const days = Array.from({ length: o.days }, (_, i) => utcDayOf(base + i * 86_400_000));
  const maxA = LIMITS.assistantLength.max ?? 1;
  const assistants = Array.from({ length: o.assistants }, (_, i) => {
    let s = 'a';
    const len = Math.min(maxA, 6);
    while (s.length < len) s += ASSISTANT_CHARS[rng.int(ASSISTANT_CHARS.length)];
    return `${s.slice(0, Math.max(1, len - String(i).length))}${i}`.slice(0, maxA);
  });
  const models = Array.from({ length: o.models }, (_, i) => `model-${i}-${rng.hex(4)}`.slice(0, LIMITS.modelLength.max));
  const keys: UsageKey[] = [];
  for (const day of days) for (const assistant of assistants) for (const model of models) keys.push({ day, assistant, model });
  return keys;
}

/** Random counters, far below the spec's bound, so sums of many never leave the safe range. */
export function usageRow(rng: Rng, key: UsageKey, maxCounter: number): UsageRowValue {
  return { ...key, input: rng.int(maxCounter), output: rng.int(maxCounter), cache_read: rng.int(maxCounter), cache_write: rng.int(maxCounter) };
}

const USAGE_ROWS_FIELD = Object.keys(reportUsage.body.fields)[0];

export function usageBody(rows: readonly UsageRowValue[]): string {
  return `{${JSON.stringify(USAGE_ROWS_FIELD)}:[${rows.map(writeRow).join(',')}]}`;
}

export { zipfCdf };
