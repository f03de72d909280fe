/**
 * The histories written beside the reports (issue 31): Jepsen's EDN, read back with a maintained
 * EDN reader (edn-data) so that the files are real EDN, and Porcupine's operations as JSON; each read
 * back into a history that pouchproof's checker judges as it judged the original, so the files say
 * what the checker saw. The report directory takes them in a folder, and nothing outside it.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEDNString } from 'edn-data';
import { describe, expect, it } from 'vitest';
import { CAS_MODEL, checkLinearizable, type CasInput, type CasOutput, type Operation, type RecordedHistory } from '../../src/check/model/linearizability/index.ts';
import type { PropertyResult } from '../../src/check/run/result.ts';
import { ednString, historyFiles, jepsenEdn, porcupineJson } from '../../src/report/histories.ts';
import { filesOfFormats, writeReportDir } from '../../src/report/write.ts';

type Op = Operation<CasInput, CasOutput>;
let next = 0;
const op = (client: string, key: string, base: string | null, rev: string, output: CasOutput | undefined, call: number, ret: number | undefined): Op => ({
  id: next++,
  client,
  input: { key, base, next: rev, what: base === null ? 'create' : 'update' },
  output: ret === undefined ? undefined : output,
  call,
  ret,
});

/** Two artifacts; on A an :info op that must have applied (b builds on its revision) and a refused one; on B a lost update unless told otherwise. */
function history(lostUpdate: boolean): RecordedHistory {
  next = 0;
  const ops = [
    op('setup', 'A', null, 'a0', 'applied', 1000, 1001),
    op('setup', 'B', null, 'b0', 'applied', 1000, 1001),
    op('client-1', 'A', 'a0', 'a1', undefined, 1002, undefined),
    op('client-2', 'A', 'a0', 'a9', 'refused', 1002, 1004),
    op('client-1', 'B', 'b0', 'b1', 'applied', 1005, 1006),
    op('client-2', 'A', 'a1', 'a2', 'applied', 1008, 1009),
    op('client-2', 'B', lostUpdate ? 'b0' : 'b1', 'b2', 'applied', 1007, 1009.5),
  ];
  // The :info op's answer was given up on at 1003.5 (the checker drops that moment; the files keep it).
  const ended = Object.fromEntries(ops.map((o) => [o.id, o.ret ?? 1003.5]));
  return { title: 'two artifacts', model: 'cas-register', ops, ended, verdict: checkLinearizable(CAS_MODEL, ops).kind };
}

type EdnOp = { index: number; type: string; f: string; value: [string | null, string]; process: number; time: number; client: string; artifact: string };

function readEdn(text: string): EdnOp[] {
  // One op map per line, as Jepsen writes history.edn and Knossos's CLI reads it: here as one vector.
  return parseEDNString(`[${text}]`, { mapAs: 'object', keywordAs: 'string' }) as EdnOp[];
}

/** A history back from EDN as a Knossos-style reader pairs it: each invocation with its process's next completion. */
function fromEdn(entries: readonly EdnOp[]): Op[] {
  const open = new Map<number, EdnOp>();
  const ops: Op[] = [];
  for (const e of entries) {
    if (e.type === 'invoke') {
      expect(open.has(e.process), `process ${e.process} invoked twice without completing`).toBe(false);
      open.set(e.process, e);
      continue;
    }
    const inv = open.get(e.process)!;
    expect(inv, `a ${e.type} with no invocation`).toBeDefined();
    open.delete(e.process);
    expect(e.value).toEqual(inv.value);
    const info = e.type === 'info';
    ops.push({ id: ops.length, client: String(e.process), input: { key: e.artifact, base: inv.value[0], next: inv.value[1], what: 'cas' }, output: info ? undefined : e.type === 'ok' ? 'applied' : 'refused', call: inv.time, ret: info ? undefined : e.time });
  }
  expect([...open.keys()]).toEqual([]);
  return ops;
}

interface PorcupineOp {
  ClientId: number;
  Input: { key: string; base: string | null; next: string };
  Call: number;
  Output: string;
  Return: number;
}

describe('Jepsen EDN histories', () => {
  it('are real EDN: op maps with :type, :f, :value, :process and :time that a maintained reader parses', () => {
    const h = history(false);
    const entries = readEdn(jepsenEdn(h, 'A'));
    expect(entries.map((e) => [e.type, e.value])).toEqual([
      ['invoke', [null, 'a0']],
      ['ok', [null, 'a0']],
      ['invoke', ['a0', 'a1']],
      ['invoke', ['a0', 'a9']],
      ['info', ['a0', 'a1']],
      ['fail', ['a0', 'a9']],
      ['invoke', ['a1', 'a2']],
      ['ok', ['a1', 'a2']],
    ]);
    expect(entries.map((e) => e.index)).toEqual(entries.map((_, i) => i));
    expect(entries.every((e) => e.f === 'cas' && Number.isInteger(e.time) && Number.isInteger(e.process) && e.artifact === 'A')).toBe(true);
    // Nanoseconds after the first invocation: the :info completion at the moment pouchproof gave up.
    expect(entries[0]!.time).toBe(0);
    expect(entries[4]!.time).toBe(3_500_000);
  });

  it('give a client a fresh process after an :info op, as a Jepsen worker after a crash', () => {
    const entries = readEdn(jepsenEdn(history(false), 'A'));
    const info = entries.find((e) => e.type === 'info')!;
    expect(info.client).toBe('client-1');
    expect(entries.filter((e) => e.process === info.process && e.type === 'invoke')).toHaveLength(1);
    // client-2's two ops on A, one after the other, share a process.
    const c2 = entries.filter((e) => e.client === 'client-2' && e.type === 'invoke').map((e) => e.process);
    expect(c2).toHaveLength(2);
    expect(c2[0]).toBe(c2[1]);
  });

  it('read back, are judged as the original was, per artifact: linearizable, and a lost update refuted', () => {
    for (const lostUpdate of [false, true]) {
      const h = history(lostUpdate);
      expect(h.verdict).toBe(lostUpdate ? 'violation' : 'ok');
      for (const key of ['A', 'B']) {
        const back = fromEdn(readEdn(jepsenEdn(h, key)));
        expect(back).toHaveLength(h.ops.filter((o) => o.input.key === key).length);
        const original = checkLinearizable(CAS_MODEL, h.ops.filter((o) => o.input.key === key)).kind;
        expect(checkLinearizable(CAS_MODEL, back).kind, `${key}, lost update ${lostUpdate}`).toBe(original);
      }
    }
  });

  it('escape strings so that any text reads back as itself', () => {
    for (const s of ['plain', 'with "quotes" and \\ backslash', 'line\nbreak\ttab\r', '\u0001\u001f\u007f', 'ünïcödé ✓']) {
      expect(parseEDNString(ednString(s))).toBe(s);
    }
  });
});

describe('Porcupine operations', () => {
  it('hold client ids, call and return times, input and output; an unknown outcome returns after everything', () => {
    const doc = JSON.parse(porcupineJson(history(false))) as { partitionBy: string; timeUnit: string; clients: Record<string, string>; operations: PorcupineOp[] };
    expect(doc.partitionBy).toBe('Input.key');
    expect(doc.timeUnit).toBe('ns');
    expect(Object.values(doc.clients)).toEqual(['setup', 'client-1', 'client-2']);
    const ops = doc.operations;
    expect(ops).toHaveLength(7);
    const unknown = ops.filter((o) => o.Output === 'unknown');
    expect(unknown).toHaveLength(1);
    expect(unknown[0]!.Return).toBeGreaterThan(Math.max(...ops.filter((o) => o.Output !== 'unknown').map((o) => o.Return)));
    expect(ops.every((o) => Number.isInteger(o.Call) && Number.isInteger(o.Return) && o.Return >= o.Call)).toBe(true);
  });

  it('read back, are judged as the original was', () => {
    for (const lostUpdate of [false, true]) {
      const h = history(lostUpdate);
      const { operations } = JSON.parse(porcupineJson(h)) as { operations: PorcupineOp[] };
      const back: Op[] = operations.map((o, id) => ({ id, client: String(o.ClientId), input: { ...o.Input, what: 'cas' }, output: o.Output === 'unknown' ? undefined : (o.Output as CasOutput), call: o.Call, ret: o.Output === 'unknown' ? undefined : o.Return }));
      expect(checkLinearizable(CAS_MODEL, back).kind).toBe(h.verdict);
    }
  });
});

describe('the histories folder of a report', () => {
  const result = (histories: PropertyResult['histories']): PropertyResult => ({ id: 'races.linearizable', section: '4.2', status: 'passed', runs: 1, requests: 1, durationMs: 1, findings: [], ...(histories ? { histories } : {}) });

  it('holds each history as Porcupine JSON and one EDN file per artifact, with an index; nothing when no history was recorded', async () => {
    const files = historyFiles([result({ kept: [history(false), history(true)], dropped: 3 }), result(undefined)]);
    expect(Object.keys(files).sort()).toEqual([
      'histories/index.json',
      'histories/races.linearizable/001-A.edn',
      'histories/races.linearizable/001-B.edn',
      'histories/races.linearizable/001.porcupine.json',
      'histories/races.linearizable/002-A.edn',
      'histories/races.linearizable/002-B.edn',
      'histories/races.linearizable/002.porcupine.json',
    ]);
    const index = JSON.parse(files['histories/index.json']!) as { histories: { verdict?: string; info?: number; dropped?: number; edn?: Record<string, { artifact: string }> }[] };
    expect(index.histories.map((h) => h.verdict ?? `dropped ${h.dropped}`)).toEqual(['ok', 'violation', 'dropped 3']);
    expect(index.histories[0]!.info).toBe(1);
    expect(index.histories[0]!.edn!['B']!.artifact).toBe('B');
    expect(historyFiles([result(undefined)])).toEqual({});
    // Evidence for other checkers, not a report format: kept whatever --report asks.
    expect(Object.keys(filesOfFormats({ ...files, 'report.json': '{}' }, ['junit'])).sort()).toEqual(Object.keys(files).sort());

    const root = await mkdtemp(join(tmpdir(), 'pp-histories-'));
    try {
      const written = await writeReportDir(root, 'run-1', files, []);
      expect(readEdn(await readFile(join(written.dir, 'histories/races.linearizable/002-B.edn'), 'utf8'))).toHaveLength(6);
      for (const bad of ['../escape.edn', 'histories/.hidden', 'histories//x.edn', 'a\\b.edn']) {
        await expect(writeReportDir(root, 'run-2', { [bad]: 'x' }, []), bad).rejects.toThrow(/bad report file name/);
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
