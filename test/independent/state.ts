/** The server's memory: accounts and their members, pouches, artifacts, usage rows. Nothing persists. */
import type { KeyObject } from 'node:crypto';

export type MemberKind = 'browser' | 'device';

export interface AccountState {
  readonly id: string;
  /** Roster head: moves with every accepted account change (4.1, 4.4, 4.5, 4.6). */
  headSeq: number;
}

export interface Caller {
  readonly account: AccountState;
  readonly kind: MemberKind;
  readonly memberId: string;
  /** Set for a device: its id, which also names its enrolled key. */
  readonly deviceId?: string;
}

export interface Artifact {
  head: string;
  deleted: boolean;
  /** Every revision id the artifact has had, oldest first. */
  readonly revisions: string[];
}

export interface Pouch {
  readonly id: string;
  readonly owner: AccountState;
  /** The last seq handed out: one per applied operation. */
  seq: number;
}

export interface UsageRow {
  input: bigint;
  output: bigint;
  cache_read: bigint;
  cache_write: bigint;
}

export interface CommitRecord {
  /** The canonical body of the first commit with this operation_id. */
  readonly canonical: string;
  readonly results: unknown[];
}

export interface State {
  readonly byToken: Map<string, Caller>;
  /** Enrolled device keys by device id (lower case). */
  readonly deviceKeys: Map<string, KeyObject>;
  readonly pouches: Map<string, Pouch>;
  /** Artifacts by `pouchId/artifactId`. */
  readonly artifacts: Map<string, Artifact>;
  /** Revision ids used in a pouch, by `pouchId/revisionId`. */
  readonly revisions: Set<string>;
  readonly commits: Map<string, CommitRecord>;
  /** Approved CLI requests: request id → the device created. */
  readonly approvals: Map<string, { account: AccountState; deviceId: string }>;
  /** Browser members known to the server (configured or revoked), by id. */
  readonly browsers: Map<string, { account: AccountState; token?: string; revoked: boolean }>;
  readonly usage: Map<string, UsageRow>;
  /** Verified Service-Signature values (read only by bug 5.2-25). */
  readonly seenSignatures: Set<string>;
}

export function emptyState(): State {
  return {
    byToken: new Map(),
    deviceKeys: new Map(),
    pouches: new Map(),
    artifacts: new Map(),
    revisions: new Set(),
    commits: new Map(),
    approvals: new Map(),
    browsers: new Map(),
    usage: new Map(),
    seenSignatures: new Set(),
  };
}
