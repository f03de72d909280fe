/**
 * The reference's state behind one small interface, so a durable store can replace the in-memory
 * one without touching the handlers. The interface is synchronous on purpose: a commit's conflict
 * check and its apply run in one synchronous block, which is what makes commits linearizable on
 * Node's single thread. A durable implementation keeps this shape (e.g. an in-memory image plus a
 * synchronous append-only journal) rather than introducing an await between check and apply.
 */

/** A pouch as the commit handler reads it. */
export interface PouchView {
  readonly owner: string;
  /** Highest seq applied so far (0 before the first op). */
  readonly seq: number;
  /** Head revision of an artifact, or undefined when the artifact does not exist. */
  head(artifactId: string): string | undefined;
  /** The artifact a revision id belongs to, or undefined when the id was never used in this pouch. */
  artifactOfRevision(revisionId: string): string | undefined;
}

export interface AppliedOp {
  readonly artifactId: string;
  readonly revisionId: string;
  readonly seq: number;
}

/** What a successful commit answered, kept for operation_id replays. */
export interface RememberedCommit {
  readonly fingerprint: string;
  readonly status: number;
  readonly data: unknown;
}

export interface UsageCounters {
  readonly input: number;
  readonly output: number;
  readonly cache_read: number;
  readonly cache_write: number;
}

export interface Store {
  pouch(pouchId: string): PouchView | undefined;
  /** Creates the pouch for `owner` if needed, then moves heads, records revisions and raises the pouch seq. */
  applyOps(pouchId: string, owner: string, ops: readonly AppliedOp[]): void;

  rememberedCommit(scope: string, operationId: string): RememberedCommit | undefined;
  rememberCommit(scope: string, operationId: string, c: RememberedCommit): void;

  usageRow(scope: string, key: string): UsageCounters | undefined;
  putUsageRow(scope: string, key: string, row: UsageCounters): void;

  /** cli-auth request id → the device it created. */
  approval(requestId: string): { accountId: string; deviceId: string } | undefined;
  putApproval(requestId: string, a: { accountId: string; deviceId: string }): void;

  addPasskey(accountId: string, passkeyId: string, label: string | undefined): void;

  revokeBrowser(accountId: string, browserId: string): void;

  /** Raises and returns the account's unlock head. */
  bumpUnlockHead(accountId: string): number;
}

class MemoryPouch implements PouchView {
  seq = 0;
  readonly heads = new Map<string, string>();
  readonly revisions = new Map<string, string>();
  constructor(readonly owner: string) {}
  head(artifactId: string): string | undefined {
    return this.heads.get(artifactId);
  }
  artifactOfRevision(revisionId: string): string | undefined {
    return this.revisions.get(revisionId);
  }
}

/** Plain maps keyed by id: every lookup is O(1), nothing scans all state. */
export class MemoryStore implements Store {
  private readonly pouches = new Map<string, MemoryPouch>();
  private readonly commits = new Map<string, RememberedCommit>();
  private readonly usage = new Map<string, Map<string, UsageCounters>>();
  private readonly approvals = new Map<string, { accountId: string; deviceId: string }>();
  private readonly passkeys = new Map<string, { accountId: string; label: string | undefined }>();
  private readonly revoked = new Map<string, Set<string>>();
  private readonly unlockHeads = new Map<string, number>();

  pouch(pouchId: string): PouchView | undefined {
    return this.pouches.get(pouchId);
  }

  applyOps(pouchId: string, owner: string, ops: readonly AppliedOp[]): void {
    let p = this.pouches.get(pouchId);
    if (!p) {
      p = new MemoryPouch(owner);
      this.pouches.set(pouchId, p);
    }
    for (const op of ops) {
      p.heads.set(op.artifactId, op.revisionId);
      p.revisions.set(op.revisionId, op.artifactId);
      if (op.seq > p.seq) p.seq = op.seq;
    }
  }

  rememberedCommit(scope: string, operationId: string): RememberedCommit | undefined {
    return this.commits.get(`${scope}\n${operationId}`);
  }
  rememberCommit(scope: string, operationId: string, c: RememberedCommit): void {
    this.commits.set(`${scope}\n${operationId}`, c);
  }

  usageRow(scope: string, key: string): UsageCounters | undefined {
    return this.usage.get(scope)?.get(key);
  }
  putUsageRow(scope: string, key: string, row: UsageCounters): void {
    let rows = this.usage.get(scope);
    if (!rows) {
      rows = new Map();
      this.usage.set(scope, rows);
    }
    rows.set(key, row);
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

  revokeBrowser(accountId: string, browserId: string): void {
    let s = this.revoked.get(accountId);
    if (!s) {
      s = new Set();
      this.revoked.set(accountId, s);
    }
    s.add(browserId);
  }

  bumpUnlockHead(accountId: string): number {
    const next = (this.unlockHeads.get(accountId) ?? 0) + 1;
    this.unlockHeads.set(accountId, next);
    return next;
  }
}
