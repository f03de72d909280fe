/**
 * The reference's state behind one small interface, so a durable store can replace the in-memory
 * one without touching the handlers. The interface is synchronous on purpose: a commit's conflict
 * check and its apply run in one synchronous block, which is what makes commits linearizable on
 * Node's single thread. A durable implementation keeps this shape (e.g. an in-memory image plus a
 * synchronous append-only journal) rather than introducing an await between check and apply.
 */
import type { OpType, UsageRowLike } from '../spec/index.ts';
import { FaultSet } from './faults.ts';
import type { Reply } from './reply.ts';

/**
 * Which rows hold a pouch: the pouch record (owner, seq) and its artifact table are keyed
 * separately, as two tables of a database would be. The commit handler derives both from the
 * pouch id (and the account, when pouch ids are scoped per account); they are equal unless a
 * fault forgets the account in one of them.
 */
export interface PouchKey {
  readonly record: string;
  readonly artifacts: string;
}

/** A pouch as the commit handler reads it. */
export interface PouchView {
  /** The owning account, or undefined when no pouch record exists (only artifacts under this key). */
  readonly owner: string | undefined;
  /** Highest seq applied so far (0 before the first op). */
  readonly seq: number;
  /** Head revision of an artifact, or undefined when the artifact does not exist. */
  head(artifactId: string): string | undefined;
  /** Whether `revisionId` was used in this pouch (by any artifact). */
  revisionUsed(revisionId: string): boolean;
  /** Whether `revisionId` is a revision (head or earlier) of `artifactId`. */
  isRevisionOf(artifactId: string, revisionId: string): boolean;
  /** Whether the op that made the artifact's head was a delete. */
  deleted(artifactId: string): boolean;
}

export interface AppliedOp {
  readonly type: OpType;
  readonly artifactId: string;
  readonly revisionId: string;
  readonly seq: number;
}

/** What a commit answered, kept for operation_id replays. */
export interface RememberedCommit {
  readonly fingerprint: string;
  readonly status: number;
  readonly data: Reply<'commitOperations'>['data'];
  /** Set when the commit was answered with an error although some of its ops applied (per-op atomicity). */
  readonly error?: { readonly code: string; readonly message: string };
}

export interface Store {
  pouch(key: PouchKey): PouchView | undefined;
  /** An empty pouch record (a pouch the fixture lists under `pouch-existence=must-exist`). */
  createPouch(key: PouchKey, owner: string): void;
  /** Creates the pouch record for `owner` if needed, then moves heads, records revisions and raises the seqs. */
  applyOps(key: PouchKey, owner: string, ops: readonly AppliedOp[]): void;
  /** The highest seq applied in any pouch (`seq-semantics=global`). */
  globalSeq(): number;
  /**
   * `rollback-on-disconnect`: a savepoint taken before `ops` are applied; the function it returns
   * undoes them (heads, revisions, delete marks, seqs), leaving alone an artifact moved since.
   */
  savepoint(key: PouchKey, ops: readonly AppliedOp[]): () => void;

  rememberedCommit(scope: string, operationId: string): RememberedCommit | undefined;
  rememberCommit(scope: string, operationId: string, c: RememberedCommit): void;

  usageRow(scope: string, key: string): UsageRowLike | undefined;
  putUsageRow(scope: string, key: string, row: UsageRowLike): void;
  /** Rows held for a scope (`usage-stored-meaning=rows-held`). */
  usageRowCount(scope: string): number;

  /** cli-auth request id → the device it created. */
  approval(requestId: string): { accountId: string; deviceId: string } | undefined;
  putApproval(requestId: string, a: { accountId: string; deviceId: string }): void;

  addPasskey(accountId: string, passkeyId: string, label: string | undefined): void;

  /** Revokes; false when the browser was revoked already. */
  revokeBrowser(accountId: string, browserId: string): boolean;
  isRevoked(accountId: string, browserId: string): boolean;

  /** Raises the account's unlock head by `by` (0 leaves it) and returns it. */
  bumpUnlockHead(accountId: string, by: number): number;
}

class PouchRecord {
  seq = 0;
  constructor(readonly owner: string) {}
}

class ArtifactTable {
  readonly heads = new Map<string, string>();
  /** revision id → the artifacts it names (more than one only under `revision-id-unique=per-artifact`). */
  readonly revisions = new Map<string, Set<string>>();
  /** Artifacts whose head is a delete. */
  readonly deleted = new Set<string>();
}

class View implements PouchView {
  constructor(
    private readonly record: PouchRecord | undefined,
    private readonly table: ArtifactTable | undefined,
  ) {}
  get owner(): string | undefined {
    return this.record?.owner;
  }
  get seq(): number {
    return this.record?.seq ?? 0;
  }
  head(artifactId: string): string | undefined {
    return this.table?.heads.get(artifactId);
  }
  revisionUsed(revisionId: string): boolean {
    return this.table?.revisions.has(revisionId) ?? false;
  }
  isRevisionOf(artifactId: string, revisionId: string): boolean {
    return this.table?.revisions.get(revisionId)?.has(artifactId) ?? false;
  }
  deleted(artifactId: string): boolean {
    return this.table?.deleted.has(artifactId) ?? false;
  }
}

/** Plain maps keyed by id: every lookup is O(1), nothing scans all state. */
export class MemoryStore implements Store {
  /** Only `revision-owner-last` is read here: the store is where that implementer's one-owner map lives. */
  constructor(private readonly faults: FaultSet = new FaultSet()) {}
  private readonly records = new Map<string, PouchRecord>();
  private readonly tables = new Map<string, ArtifactTable>();
  private highestSeq = 0;
  private readonly commits = new Map<string, RememberedCommit>();
  private readonly usage = new Map<string, Map<string, UsageRowLike>>();
  private readonly approvals = new Map<string, { accountId: string; deviceId: string }>();
  private readonly passkeys = new Map<string, { accountId: string; label: string | undefined }>();
  private readonly revoked = new Map<string, Set<string>>();
  private readonly unlockHeads = new Map<string, number>();

  pouch(key: PouchKey): PouchView | undefined {
    const record = this.records.get(key.record);
    const table = this.tables.get(key.artifacts);
    return record || table ? new View(record, table) : undefined;
  }

  createPouch(key: PouchKey, owner: string): void {
    if (!this.records.has(key.record)) this.records.set(key.record, new PouchRecord(owner));
  }

  applyOps(key: PouchKey, owner: string, ops: readonly AppliedOp[]): void {
    let record = this.records.get(key.record);
    if (!record) {
      record = new PouchRecord(owner);
      this.records.set(key.record, record);
    }
    let table = this.tables.get(key.artifacts);
    if (!table) {
      table = new ArtifactTable();
      this.tables.set(key.artifacts, table);
    }
    for (const op of ops) {
      table.heads.set(op.artifactId, op.revisionId);
      if (op.type === 'delete') table.deleted.add(op.artifactId);
      else table.deleted.delete(op.artifactId);
      let names = table.revisions.get(op.revisionId);
      // `revision-owner-last`: revision id → the one artifact that used it last, as a plain map would hold it.
      if (!names || this.faults.has('revision-owner-last')) {
        names = new Set();
        table.revisions.set(op.revisionId, names);
      }
      names.add(op.artifactId);
      if (op.seq > record.seq) record.seq = op.seq;
      if (op.seq > this.highestSeq) this.highestSeq = op.seq;
    }
  }

  globalSeq(): number {
    return this.highestSeq;
  }

  // Stryker disable all: runs only under the rollback-on-disconnect fault (docs/mutation.md)
  savepoint(key: PouchKey, ops: readonly AppliedOp[]): () => void {
    const table = this.tables.get(key.artifacts);
    const before = new Map(ops.map((o) => [o.artifactId, { head: table?.heads.get(o.artifactId), deleted: table?.deleted.has(o.artifactId) ?? false }]));
    const seq = this.records.get(key.record)?.seq ?? 0;
    const highest = this.highestSeq;
    const top = Math.max(0, ...ops.map((o) => o.seq));
    // The revision each artifact was left at by the ops: an artifact whose head is another since was moved by a later commit.
    const left = new Map(ops.map((o) => [o.artifactId, o.revisionId]));
    return () => {
      const t = this.tables.get(key.artifacts);
      if (!t) return;
      for (const [artifact, was] of before) {
        if (t.heads.get(artifact) !== left.get(artifact)) continue;
        if (was.head === undefined) t.heads.delete(artifact);
        else t.heads.set(artifact, was.head);
        if (was.deleted) t.deleted.add(artifact);
        else t.deleted.delete(artifact);
        for (const o of ops.filter((x) => x.artifactId === artifact)) {
          const names = t.revisions.get(o.revisionId);
          names?.delete(artifact);
          if (names?.size === 0) t.revisions.delete(o.revisionId);
        }
      }
      const r = this.records.get(key.record);
      if (r && r.seq === top) r.seq = seq;
      if (this.highestSeq === top) this.highestSeq = highest;
    };
  }
  // Stryker restore all

  rememberedCommit(scope: string, operationId: string): RememberedCommit | undefined {
    return this.commits.get(`${scope}\n${operationId}`);
  }
  rememberCommit(scope: string, operationId: string, c: RememberedCommit): void {
    this.commits.set(`${scope}\n${operationId}`, c);
  }

  usageRow(scope: string, key: string): UsageRowLike | undefined {
    return this.usage.get(scope)?.get(key);
  }
  putUsageRow(scope: string, key: string, row: UsageRowLike): void {
    let rows = this.usage.get(scope);
    if (!rows) {
      rows = new Map();
      this.usage.set(scope, rows);
    }
    rows.set(key, row);
  }
  usageRowCount(scope: string): number {
    return this.usage.get(scope)?.size ?? 0;
  }

  approval(requestId: string): { accountId: string; deviceId: string } | undefined {
    return this.approvals.get(requestId);
  }
  putApproval(requestId: string, a: { accountId: string; deviceId: string }): void {
    this.approvals.set(requestId, a);
  }

  addPasskey(accountId: string, passkeyId: string, label: string | undefined): void {
    this.passkeys.set(passkeyId, { accountId, label });
  }

  revokeBrowser(accountId: string, browserId: string): boolean {
    let s = this.revoked.get(accountId);
    if (!s) {
      s = new Set();
      this.revoked.set(accountId, s);
    }
    const fresh = !s.has(browserId);
    s.add(browserId);
    return fresh;
  }

  isRevoked(accountId: string, browserId: string): boolean {
    return this.revoked.get(accountId)?.has(browserId) ?? false;
  }

  bumpUnlockHead(accountId: string, by: number): number {
    const next = (this.unlockHeads.get(accountId) ?? 0) + by;
    this.unlockHeads.set(accountId, next);
    return next;
  }
}
