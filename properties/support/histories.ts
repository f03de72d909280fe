/**
 * Concurrent commit histories (4.2) for the linearizability check: several clients commit to a few
 * shared artifacts in rounds; each round's commits are sent with their last byte held back and
 * released together, so they meet in the server at once. Every op is recorded with the moment its
 * commit was sent and the moment its answer came back, and its fate as the one commit judge reads
 * it under the run's readings: applied, refused, or unknown (a timeout, a lost answer or a 5xx: it
 * may or may not have taken effect, Jepsen's `:info`). Each artifact's history is then a
 * compare-and-set register's (CAS_MODEL). The whole history goes to the run (`recordHistory`),
 * which writes it beside the reports for Porcupine, Knossos and Elle.
 */
import { performance } from 'node:perf_hooks';
import type { CasInput, CasOutput, CheckResult, Operation, RecordedHistory } from '../../src/check/model/linearizability/index.ts';
import type { CaseContext } from '../../src/check/property.ts';
import type { Exchange } from '../../src/target/client.ts';
import { commit, fates, type Op, type Pouch } from './commits.ts';
import { releasedTogether } from './together.ts';
import type { CommitOutcome, OpFate } from '../../src/check/judge/commit-outcome.ts';

export type CommitOp = Operation<CasInput, CasOutput>;

export interface Sent {
  readonly client: string;
  readonly ops: readonly Op[];
  readonly exchange: Exchange;
  readonly fate: CommitOutcome;
  readonly call: number;
  readonly ret: number;
}

/** Records ops into a history, numbering them in the order they were sent. */
export class HistoryLog {
  readonly ops: CommitOp[] = [];
  /** The batch each op belonged to (op id → the other ops' artifacts), for timelines. */
  readonly batchOf = new Map<number, string[]>();
  /** By op id: when its answer came, or when pouchproof stopped waiting for one (the checker drops that moment for an unknown outcome; the files keep it). */
  readonly ended: Record<number, number> = {};

  record(s: Pick<Sent, 'client' | 'ops' | 'call' | 'ret'> & { readonly fates: readonly OpFate[] }): void {
    s.ops.forEach((o, i) => {
      const fate = s.fates[i] ?? 'unknown';
      const id = this.ops.length;
      this.ops.push({
        id,
        client: s.client,
        input: { key: String(o.artifact_id), base: o.base_revision_id, next: String(o.revision_id), what: String(o.type) },
        output: fate === 'unknown' ? undefined : fate,
        call: s.call,
        ret: fate === 'unknown' ? undefined : s.ret,
      });
      this.ended[id] = s.ret;
      if (s.ops.length > 1) this.batchOf.set(id, s.ops.filter((_, j) => j !== i).map((x) => String(x.artifact_id)));
    });
  }

  /** The history as the run keeps it, with the checker's verdict on it. */
  recorded(title: string, checked: Pick<CheckResult<CasInput, CasOutput>, 'kind'>): RecordedHistory {
    return { title, model: 'cas-register', ops: [...this.ops], ended: { ...this.ended }, verdict: checked.kind };
  }
}

/** Sends one commit per client, held back and released together; answers in the clients' order. */
export function round(ctx: CaseContext, pouch: Pouch, commits: readonly { client: string; ops: readonly Op[] }[]): Promise<Sent[]> {
  return releasedTogether(ctx, commits.length, async (i, hold) => {
    const c = commits[i];
    const call = performance.now();
    const exchange = await commit(ctx, pouch, c.ops, hold);
    const ret = performance.now();
    return { client: c.client, ops: c.ops, exchange, fate: fates(ctx, exchange, c.ops), call, ret };
  });
}

/** Short names for revision ids (r0, r1, … in order of first appearance) and artifact ids (A, B, …). */
export class Aliases {
  private readonly names = new Map<string, string>();
  private readonly counts = new Map<string, number>();
  of(id: string | null, prefix: string): string {
    if (id === null) return 'null';
    let n = this.names.get(id);
    if (n === undefined) {
      const k = this.counts.get(prefix) ?? 0;
      this.counts.set(prefix, k + 1);
      n = prefix === 'artifact' ? String.fromCharCode(65 + (k % 26)) + (k >= 26 ? String(k) : '') : `${prefix}${k}`;
      this.names.set(id, n);
    }
    return n;
  }
}
