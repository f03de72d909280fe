/**
 * The example database: every failing case a run finds is stored under
 * `<dir>/<target-fingerprint>/<property-id>.json` (default dir `.pouchproof/examples`), and the next
 * run against the same target re-runs them first (Hypothesis' example database, fast-check's
 * `examples`). The fingerprint is the target's identity: its base URL's origin and path (no
 * credentials, query or fragment), or the embedded reference as one target whatever its port and
 * faults, so a fault found on the reference is re-tried once the fault is gone. A case that now
 * passes, or no longer fits, leaves the store; a property keeps its newest few.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { makeDir } from '../report/make-dir.ts';
import { join } from 'node:path';
import { isFailing, type ExampleReplay, type RunResult, MAX_DISTINCT_FAILURES } from '../check/run/index.ts';
import { UsageError } from './usage-error.ts';
import { errorCode, errorMessage, isRecord, parseJson } from '../spec/index.ts';

export const DEFAULT_EXAMPLES_DIR = '.pouchproof/examples';
/** Stored cases per property at most (the oldest go first): as many as a run reports distinct failures. */
export const MAX_EXAMPLES_PER_PROPERTY = MAX_DISTINCT_FAILURES;

interface Stored {
  readonly replay: string;
  readonly firstSeen: string;
  readonly lastSeen: string;
}

interface StoreFile {
  readonly schema: 'pouchproof-examples/1';
  readonly property: string;
  readonly cases: readonly Stored[];
}

/** The directory of one target's stored cases: derived from its identity, never from a secret. */
export function targetFingerprint(t: { readonly embedded: boolean; readonly baseUrl: string }): string {
  if (t.embedded) return 'embedded-reference';
  const u = new URL(t.baseUrl);
  const identity = `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  const slug = u.host.replace(/[^A-Za-z0-9.-]+/g, '-');
  return `${slug}-${createHash('sha256').update(identity).digest('hex').slice(0, 12)}`;
}

const fileOf = (id: string) => `${id.replace(/[^A-Za-z0-9._-]+/g, '_')}.json`;

export class ExampleStore {
  constructor(readonly dir: string) {}

  static for(root: string, target: { readonly embedded: boolean; readonly baseUrl: string }): ExampleStore {
    return new ExampleStore(join(root, targetFingerprint(target)));
  }

  /** Every property's stored tokens, newest first; an unreadable file is passed over (the store is a cache). */
  async load(): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((n) => n.endsWith('.json'));
    } catch {
      return out;
    }
    for (const name of names) {
      const f = await this.read(name);
      if (f?.cases.length) out.set(f.property, f.cases.map((c) => c.replay));
    }
    return out;
  }

  /** Adds the run's failing cases, drops those re-run that now pass or no longer fit, and keeps each property's newest few. */
  async update(run: Pick<RunResult, 'results' | 'examples'>, now = new Date().toISOString()): Promise<void> {
    const gone = new Set((run.examples ?? []).filter((e: ExampleReplay) => e.verdict === 'now-passing' || e.verdict === 'no-longer-fits').map((e) => e.replay));
    const found = new Map<string, string[]>();
    for (const r of run.results) for (const f of r.findings) if (isFailing(f.kind) && f.replay) found.set(r.id, [...(found.get(r.id) ?? []), f.replay]);
    const touched = new Set([...found.keys(), ...(run.examples ?? []).map((e) => e.property)]);
    try {
      for (const id of touched) await this.updateOne(id, found.get(id) ?? [], gone, now);
    } catch (e) {
      throw new UsageError(`cannot write the example database under ${this.dir}: ${errorCode(e) ?? errorMessage(e)} (--no-examples turns it off)`);
    }
  }

  private async updateOne(id: string, found: readonly string[], gone: ReadonlySet<string>, now: string): Promise<void> {
    const had = ((await this.read(fileOf(id)))?.cases ?? []).filter((c) => !gone.has(c.replay));
    const byToken = new Map(had.map((c) => [c.replay, c]));
    for (const t of found) byToken.set(t, { replay: t, firstSeen: byToken.get(t)?.firstSeen ?? now, lastSeen: now });
    const cases = [...byToken.values()].sort((a, b) => b.lastSeen.localeCompare(a.lastSeen)).slice(0, MAX_EXAMPLES_PER_PROPERTY);
    const path = join(this.dir, fileOf(id));
    if (cases.length === 0) return void (await rm(path, { force: true }));
    await makeDir(this.dir);
    const file: StoreFile = { schema: 'pouchproof-examples/1', property: id, cases };
    // Written aside and renamed, so a run stopped half-way never leaves half a file.
    await writeFile(`${path}.tmp`, `${JSON.stringify(file, null, 2)}\n`, 'utf8');
    await rename(`${path}.tmp`, path);
  }

  private async read(name: string): Promise<StoreFile | undefined> {
    try {
      const f = parseJson(await readFile(join(this.dir, name), 'utf8'));
      if (!isRecord(f) || f.schema !== 'pouchproof-examples/1' || typeof f.property !== 'string' || !Array.isArray(f.cases)) return undefined;
      return { schema: f.schema, property: f.property, cases: f.cases.filter((c: unknown): c is Stored => isRecord(c) && typeof c.replay === 'string' && typeof c.lastSeen === 'string' && typeof c.firstSeen === 'string') };
    } catch {
      return undefined;
    }
  }
}
