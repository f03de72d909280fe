/**
 * The concurrent histories of a run, in the formats other linearizability checkers read, so that a
 * user can check pouchproof's verdicts with their own tools:
 *
 * - Porcupine's operations as JSON (`ClientId`, `Input`, `Call`, `Output`, `Return`): one file per
 *   history, partitioned by `Input.key` (the artifact). An operation of unknown outcome has the
 *   output `"unknown"` and returns after every other event, as Porcupine's own Jepsen-log tests
 *   give a timed-out call; the model then lets it apply or not.
 * - Jepsen's EDN history, one op map per line (`{:type :invoke|:ok|:fail|:info, :f :cas, :value
 *   [base next], :process …, :time …}`), which Knossos's `cas-register` model reads: one file per
 *   artifact, since that model is a single register. A refused op is `:fail` (it did not happen),
 *   an op whose answer never came `:info` (it may have happened at any moment after its invocation,
 *   or never). Processes are single-threaded, as Jepsen's are: a client whose op went `:info` goes
 *   on under a fresh process number, as a Jepsen worker does after a crash.
 *
 * Times are integer nanoseconds after the history's first invocation.
 */
import type { RecordedHistory } from '../check/model/linearizability/index.ts';
import type { PropertyResult } from '../check/run/index.ts';

type Op = RecordedHistory['ops'][number];

const ns = (ms: number, t0: number): number => Math.max(0, Math.round((ms - t0) * 1e6));

/** When the op's answer came (or pouchproof gave up), never before its call. */
const endOf = (h: RecordedHistory, o: Op): number => Math.max(o.call, o.ret ?? h.ended[o.id] ?? o.call);

const outputOf = (o: Op): string => (o.ret === undefined ? 'unknown' : (o.output ?? 'unknown'));

/** Porcupine's operations, as JSON a Go program unmarshals into `[]porcupine.Operation` (`operations`). */
export function porcupineJson(h: RecordedHistory): string {
  const t0 = Math.min(...h.ops.map((o) => o.call));
  const after = Math.max(0, ...h.ops.map((o) => ns(endOf(h, o), t0))) + 1;
  const clients = new Map<string, number>();
  const clientId = (c: string): number => clients.get(c) ?? (clients.set(c, clients.size), clients.size - 1);
  const operations = h.ops.map((o) => ({
    ClientId: clientId(o.client),
    Input: { key: o.input.key, base: o.input.base, next: o.input.next, what: o.input.what },
    Call: ns(o.call, t0),
    Output: outputOf(o),
    // Unknown outcome: open to the end of the history.
    Return: o.ret === undefined ? after : ns(endOf(h, o), t0),
    Metadata: { id: o.id, client: o.client },
  }));
  const doc = {
    format: 'porcupine-operations',
    title: h.title,
    model: h.model,
    partitionBy: 'Input.key',
    timeUnit: 'ns',
    verdict: h.verdict,
    clients: Object.fromEntries([...clients].map(([name, id]) => [id, name])),
    operations,
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** An EDN string literal (control characters as \uXXXX, which every EDN reader takes). */
export function ednString(s: string): string {
  const escaped = s.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `"${escaped}"`;
}

const ednOrNil = (s: string | null): string => (s === null ? 'nil' : ednString(s));

interface Event {
  readonly op: Op;
  readonly at: number;
  readonly invoke: boolean;
}

/** Jepsen's single-threaded processes: a client's op takes a process of that client that is idle (its last op answered before this one began), else a fresh number. */
function processesOf(h: RecordedHistory, ops: readonly Op[]): Map<number, number> {
  const out = new Map<number, number>();
  const lanes = new Map<string, { process: number; freeAt: number }[]>();
  let next = 0;
  for (const o of [...ops].sort((a, b) => a.call - b.call || a.id - b.id)) {
    const mine = lanes.get(o.client) ?? [];
    lanes.set(o.client, mine);
    let lane = mine.find((l) => l.freeAt < o.call);
    if (!lane) mine.push((lane = { process: next++, freeAt: 0 }));
    // An op of unknown outcome never completes: its process is never idle again.
    lane.freeAt = o.ret === undefined ? Infinity : endOf(h, o);
    out.set(o.id, lane.process);
  }
  return out;
}

/** One artifact's ops (Knossos's `cas-register`: one register) as Jepsen's EDN history, one op map per line. */
export function jepsenEdn(h: RecordedHistory, key: string): string {
  const ops = h.ops.filter((o) => o.input.key === key);
  if (ops.length === 0) return '';
  const t0 = Math.min(...h.ops.map((o) => o.call));
  const process = processesOf(h, ops);
  const events: Event[] = ops.flatMap((o) => [
    { op: o, at: o.call, invoke: true },
    { op: o, at: endOf(h, o), invoke: false },
  ]);
  // Invocations before completions at the same moment: touching intervals overlap (closed intervals, as the checker and Porcupine read them).
  events.sort((a, b) => a.at - b.at || Number(b.invoke) - Number(a.invoke) || a.op.id - b.op.id);
  return events
    .map((e, index) => {
      const type = e.invoke ? 'invoke' : e.op.ret === undefined ? 'info' : e.op.output === 'applied' ? 'ok' : 'fail';
      const value = `[${ednOrNil(e.op.input.base)} ${ednString(e.op.input.next)}]`;
      return `{:index ${index}, :type :${type}, :f :cas, :value ${value}, :process ${process.get(e.op.id)}, :time ${ns(e.at, t0)}, :client ${ednString(e.op.client)}, :artifact ${ednString(e.op.input.key)}}`;
    })
    .join('\n')
    .concat('\n');
}

/** Short names for a history's artifacts (A, B, …, in order of first appearance), for file names. */
function artifactNames(h: RecordedHistory): Map<string, string> {
  const names = new Map<string, string>();
  for (const o of h.ops) if (!names.has(o.input.key)) names.set(o.input.key, names.size < 26 ? String.fromCharCode(65 + names.size) : `A${names.size}`);
  return names;
}

/** Every history the run's properties recorded, as files under `histories/`, with an index; none when no property recorded one. */
export function historyFiles(results: readonly PropertyResult[]): Record<string, string> {
  const files: Record<string, string> = {};
  const index: unknown[] = [];
  for (const r of results) {
    const kept = r.histories?.kept ?? [];
    kept.forEach((h, i) => {
      const stem = `histories/${r.id}/${String(i + 1).padStart(3, '0')}`;
      files[`${stem}.porcupine.json`] = porcupineJson(h);
      const edn: Record<string, { artifact: string; file: string }> = {};
      for (const [key, name] of artifactNames(h)) {
        files[`${stem}-${name}.edn`] = jepsenEdn(h, key);
        edn[name] = { artifact: key, file: `${stem}-${name}.edn` };
      }
      const info = h.ops.filter((o) => o.ret === undefined).length;
      index.push({ property: r.id, history: i + 1, title: h.title, model: h.model, verdict: h.verdict, ops: h.ops.length, info, porcupine: `${stem}.porcupine.json`, edn });
    });
    if (r.histories?.dropped) index.push({ property: r.id, dropped: r.histories.dropped });
  }
  if (index.length === 0) return {};
  files['histories/index.json'] = `${JSON.stringify({ format: 'pouchproof/histories@1', histories: index }, null, 2)}\n`;
  return files;
}
