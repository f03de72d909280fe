/**
 * The linearizability checker against hand-made histories (Porcupine's classic register examples
 * adapted, compare-and-set histories with lost updates, stale bases, real-time order and unknown
 * outcomes) and, on tiny random histories, against a brute-force checker that tries every order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CAS_MODEL, checkLinearizable, renderTimeline, weakened, type CasInput, type CasOutput, type Model, type Operation } from '../../src/check/model/linearizability/index.ts';

// ---- a plain register (Porcupine's TestRegisterModel) -------------------------------------------

type RegIn = { op: 'put'; value: number } | { op: 'get' };
const REGISTER: Model<number, RegIn, number> = {
  init: () => 0,
  step: (s, i, out) => (i.op === 'put' ? { ok: true, state: i.value } : out === undefined || out === s ? { ok: true, state: s } : { ok: false }),
  key: (s) => String(s),
};
let nextId = 0;
const reg = (client: string, input: RegIn, output: number, call: number, ret: number | undefined): Operation<RegIn, number> => ({ id: nextId++, client, input, output, call, ret });

describe('Porcupine register examples', () => {
  it('a read of the old value concurrent with a write is linearizable', () => {
    const h = [reg('c0', { op: 'put', value: 100 }, 0, 0, 100), reg('c1', { op: 'get' }, 100, 25, 75), reg('c2', { op: 'get' }, 0, 30, 60)];
    expect(checkLinearizable(REGISTER, h).kind).toBe('ok');
  });
  it('a read of the old value after a read of the new one is not', () => {
    const h = [reg('c0', { op: 'put', value: 200 }, 0, 0, 100), reg('c1', { op: 'get' }, 200, 10, 30), reg('c2', { op: 'get' }, 0, 40, 90)];
    const r = checkLinearizable(REGISTER, h);
    expect(r.kind).toBe('violation');
    // The two reads alone: whenever the write took effect, the old value cannot come back after the new one.
    if (r.kind === 'violation') expect(r.witness.map((o) => o.input.op)).toEqual(['get', 'get']);
  });
  it('a write whose outcome is unknown may explain a later read, or be left out', () => {
    const pending = reg('c0', { op: 'put', value: 7 }, 0, 0, undefined);
    expect(checkLinearizable(REGISTER, [{ ...pending, output: undefined }, reg('c1', { op: 'get' }, 7, 50, 60)]).kind).toBe('ok');
    expect(checkLinearizable(REGISTER, [{ ...pending, output: undefined }, reg('c1', { op: 'get' }, 0, 50, 60)]).kind).toBe('ok');
    // …but not before it was called.
    expect(checkLinearizable(REGISTER, [reg('c1', { op: 'get' }, 7, 0, 10), { ...reg('c0', { op: 'put', value: 7 }, 0, 20, undefined), output: undefined }]).kind).toBe('violation');
  });
});

// ---- compare-and-set histories ------------------------------------------------------------------

const cas = (client: string, base: string | null, next: string, output: CasOutput | undefined, call: number, ret: number | undefined, key = 'x'): Operation<CasInput, CasOutput> => ({
  id: nextId++,
  client,
  input: { key, base, next, what: base === null ? 'create' : 'update' },
  output: ret === undefined ? undefined : output,
  call,
  ret,
});

describe('compare-and-set histories', () => {
  it('a sequential chain of applied ops is linearizable', () => {
    const h = [cas('a', null, 'r0', 'applied', 0, 1), cas('a', 'r0', 'r1', 'applied', 2, 3), cas('b', 'r1', 'r2', 'applied', 4, 5)];
    expect(checkLinearizable(CAS_MODEL, h).kind).toBe('ok');
  });
  it('overlapping ops are ordered by their bases, whatever their start times', () => {
    // b started first but builds on a's revision: fine while they overlap.
    const h = [cas('s', null, 'r0', 'applied', 0, 1), cas('b', 'r1', 'r2', 'applied', 2, 10), cas('a', 'r0', 'r1', 'applied', 3, 9)];
    expect(checkLinearizable(CAS_MODEL, h).kind).toBe('ok');
  });
  it('real time decides: an op built on a revision written only after it completed is not', () => {
    const h = [cas('s', null, 'r0', 'applied', 0, 1), cas('b', 'r1', 'r2', 'applied', 2, 4), cas('a', 'r0', 'r1', 'applied', 5, 9)];
    expect(checkLinearizable(CAS_MODEL, h).kind).toBe('violation');
  });
  it('a lost update (two applied ops on one base) is a violation whose witness is the two of them', () => {
    const create = cas('s', null, 'r0', 'applied', 0, 1);
    const u1 = cas('a', 'r0', 'r1', 'applied', 2, 6);
    const u2 = cas('b', 'r0', 'r2', 'applied', 3, 7);
    const noise = [cas('c', 'r1', 'r3', 'refused', 2, 8), cas('d', 'r0', 'r4', 'refused', 4, 5), cas('e', 'r9', 'r5', undefined, 5, undefined)];
    const r = checkLinearizable(CAS_MODEL, [create, u1, u2, ...noise]);
    expect(r.kind).toBe('violation');
    if (r.kind !== 'violation') return;
    expect(r.witness.map((o) => o.id).sort()).toEqual([u1.id, u2.id].sort());
    expect(r.others).toHaveLength(4);
    expect(r.partition).toBe('x');
  });
  it('a stale base that applies after the head moved on is a violation', () => {
    const h = [cas('s', null, 'r0', 'applied', 0, 1), cas('a', 'r0', 'r1', 'applied', 2, 3), cas('b', 'r0', 'r2', 'applied', 4, 5)];
    expect(checkLinearizable(CAS_MODEL, h).kind).toBe('violation');
  });
  it('an applied op on a base nobody wrote is a violation; on one an op of unknown outcome could have written, it is not', () => {
    expect(checkLinearizable(CAS_MODEL, [cas('s', null, 'r0', 'applied', 0, 1), cas('a', 'r7', 'r1', 'applied', 2, 3)]).kind).toBe('violation');
    expect(checkLinearizable(CAS_MODEL, [cas('s', null, 'r0', 'applied', 0, 1), cas('t', 'r0', 'r7', undefined, 1, undefined), cas('a', 'r7', 'r1', 'applied', 2, 3)]).kind).toBe('ok');
  });
  it('a write of unknown outcome that must not have happened at all is fine (Porcupine\'s "not at all" for CAS)', () => {
    // u may not be linearized anywhere: before u2 it would steal r0; after, the head is no longer r0.
    const h = [cas('s', null, 'r0', 'applied', 0, 1), cas('u', 'r0', 'rx', undefined, 2, undefined), cas('a', 'r0', 'r1', 'applied', 3, 4), cas('b', 'r1', 'r2', 'applied', 5, 6)];
    expect(checkLinearizable(CAS_MODEL, h).kind).toBe('ok');
  });
  it('refused ops never constrain (the spec does not say why a server refuses)', () => {
    const h = [cas('s', null, 'r0', 'applied', 0, 1), cas('a', 'r0', 'r1', 'refused', 2, 3), cas('b', 'r0', 'r2', 'refused', 2, 3), cas('c', 'r0', 'r3', 'applied', 4, 5)];
    expect(checkLinearizable(CAS_MODEL, h).kind).toBe('ok');
  });
  it('touching intervals overlap (a call at the very moment of a return)', () => {
    const h = [cas('s', null, 'r0', 'applied', 0, 1), cas('b', 'r1', 'r2', 'applied', 2, 5), cas('a', 'r0', 'r1', 'applied', 5, 9)];
    expect(checkLinearizable(CAS_MODEL, h).kind).toBe('ok');
  });
  it('checks partitions apart: a violation in one artifact is found among others that hold', () => {
    const h = [
      cas('s', null, 'a0', 'applied', 0, 1, 'A'),
      cas('s', null, 'b0', 'applied', 0, 1, 'B'),
      cas('p', 'a0', 'a1', 'applied', 2, 4, 'A'),
      cas('q', 'b0', 'b1', 'applied', 2, 4, 'B'),
      cas('r', 'b0', 'b2', 'applied', 3, 5, 'B'),
    ];
    const r = checkLinearizable(CAS_MODEL, h);
    expect(r.kind).toBe('violation');
    if (r.kind === 'violation') expect(r.partition).toBe('B');
  });
  it('many concurrent ops: memoisation keeps the search small', () => {
    const h = [cas('s', null, 'r0', 'applied', 0, 1)];
    // 24 concurrent refused ops and one applied: a naive search would explore 25! orders.
    for (let i = 0; i < 24; i++) h.push(cas(`c${i}`, 'r0', `z${i}`, 'refused', 2, 100));
    h.push(cas('w', 'r0', 'r1', 'applied', 2, 100));
    const r = checkLinearizable(CAS_MODEL, h);
    expect(r.kind).toBe('ok');
    expect(r.steps).toBeLessThan(20_000);
  });
  it('past its step budget the answer is unknown, never a violation', () => {
    const h = [cas('s', null, 'r0', 'applied', 0, 1)];
    for (let i = 0; i < 12; i++) h.push(cas(`c${i}`, 'r0', `z${i}`, undefined, 2, undefined));
    h.push(cas('a', 'r0', 'r1', 'applied', 3, 4), cas('b', 'r0', 'r2', 'applied', 3, 4));
    expect(checkLinearizable(CAS_MODEL, h, { maxSteps: 5 }).kind).toBe('unknown');
    expect(checkLinearizable(CAS_MODEL, h).kind).toBe('violation');
  });
  it('renders a witness as a timeline: intervals to scale, unknown outcomes open to the right', () => {
    const ops = [cas('client-1', 'r0', 'r1', 'applied', 0, 10), cas('client-2', 'r0', 'r2', 'applied', 5, 20), cas('client-3', 'r0', 'r3', undefined, 12, undefined)];
    const text = renderTimeline(ops, { label: (o) => `${o.input.base}→${o.input.next}: ${o.output ?? 'unknown'}`, width: 20 });
    const lines = text.split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/0 ms.*20 ms/);
    expect(lines[1]).toMatch(/^client-1 \|\[=+\] +\| #\d+ r0→r1: applied$/);
    expect(lines[2]).toMatch(/^client-2 \| +\[=+\]\| #\d+ r0→r2: applied$/);
    expect(lines[3]).toMatch(/^client-3 \| +\[=*>\| #\d+ r0→r3: unknown$/);
    expect(renderTimeline([], { label: () => '' })).toBe('(no operations)');
  });
});

// ---- against a brute-force checker --------------------------------------------------------------

/** Every order of every subset that keeps all known ops and respects real time, run through the model. */
function bruteForce<S, I, O>(model: Model<S, I, O>, ops: readonly Operation<I, O>[]): boolean {
  const before = (a: Operation<I, O>, b: Operation<I, O>): boolean => a.ret !== undefined && a.ret < b.call;
  const known = ops.filter((o) => o.ret !== undefined).length;
  const go = (done: Set<number>, state: S, knownDone: number): boolean => {
    if (knownDone === known) return true;
    for (const [i, o] of ops.entries()) {
      if (done.has(i)) continue;
      // o may go next only if every op that precedes it in real time is already placed (pending ops may also be skipped for good).
      if (ops.some((p, j) => !done.has(j) && j !== i && before(p, o))) continue;
      const r = model.step(state, o.input, o.output);
      if (!r.ok) continue;
      done.add(i);
      const ok = go(done, r.state, knownDone + (o.ret !== undefined ? 1 : 0));
      done.delete(i);
      if (ok) return true;
    }
    return false;
  };
  return go(new Set(), model.init(), 0);
}

const REVS = ['r0', 'r1', 'r2', 'r3'];
const arbCasOp = fc.record({
  base: fc.constantFrom<string | null>(null, ...REVS),
  next: fc.constantFrom(...REVS),
  outcome: fc.constantFrom<CasOutput | 'unknown'>('applied', 'applied', 'refused', 'unknown'),
  call: fc.integer({ min: 0, max: 10 }),
  length: fc.integer({ min: 0, max: 6 }),
});

describe('against a brute-force checker on tiny random histories', () => {
  it('agrees on every compare-and-set history of up to 6 ops, and its witnesses refute the history alone', () => {
    fc.assert(
      fc.property(fc.array(arbCasOp, { minLength: 1, maxLength: 6 }), (raw) => {
        const ops = raw.map((r, i): Operation<CasInput, CasOutput> => ({
          id: i,
          client: `c${i}`,
          input: { key: 'x', base: r.base, next: r.next, what: 'update' },
          output: r.outcome === 'unknown' ? undefined : r.outcome,
          call: r.call,
          ret: r.outcome === 'unknown' ? undefined : r.call + r.length,
        }));
        const expected = bruteForce(CAS_MODEL, ops);
        const got = checkLinearizable(CAS_MODEL, ops);
        expect(got.kind).toBe(expected ? 'ok' : 'violation');
        if (got.kind === 'violation') {
          // The witness with every other op weakened is refuted too (so it proves the whole history wrong).
          const keep = new Set(got.witness.map((o) => o.id));
          expect(bruteForce(CAS_MODEL, ops.map((o) => (keep.has(o.id) ? o : weakened(o))))).toBe(false);
          // And it is minimal: weakening any one more op of it makes it linearizable.
          for (const w of got.witness) expect(bruteForce(CAS_MODEL, ops.map((o) => (keep.has(o.id) && o.id !== w.id ? o : weakened(o)))), `op ${w.id}`).toBe(true);
        }
      }),
      { numRuns: 1500, seed: 11 },
    );
  });
  it('agrees on random register histories (reads and writes, some unknown)', () => {
    const arb = fc.record({
      put: fc.boolean(),
      value: fc.integer({ min: 0, max: 2 }),
      unknown: fc.boolean(),
      call: fc.integer({ min: 0, max: 10 }),
      length: fc.integer({ min: 0, max: 6 }),
    });
    fc.assert(
      fc.property(fc.array(arb, { minLength: 1, maxLength: 6 }), (raw) => {
        const ops = raw.map((r, i): Operation<RegIn, number> => ({
          id: i,
          client: `c${i}`,
          input: r.put ? { op: 'put', value: r.value } : { op: 'get' },
          output: r.unknown ? undefined : r.value,
          call: r.call,
          ret: r.unknown ? undefined : r.call + r.length,
        }));
        expect(checkLinearizable(REGISTER, ops).kind).toBe(bruteForce(REGISTER, ops) ? 'ok' : 'violation');
      }),
      { numRuns: 1500, seed: 12 },
    );
  });
});

// ---- indeterminate operations (Jepsen's :info) --------------------------------------------------

/**
 * An op whose answer was lost, as Knossos reads `:info` and Porcupine a call returned "at infinity"
 * with an output the model takes either way: it may have taken effect at any moment after its call
 * (no upper bound), or never. Each history is also checked with the op's two fates made explicit
 * (applied, with a return after everything else; left out), so that each test shows which fates the
 * rest of the history allows.
 */
describe('indeterminate (:info) operations', () => {
  const info = (client: string, base: string | null, next: string, call: number): Operation<CasInput, CasOutput> => cas(client, base, next, undefined, call, undefined);
  const applied = (o: Operation<CasInput, CasOutput>): Operation<CasInput, CasOutput> => ({ ...o, output: 'applied', ret: 1_000 });
  const verdicts = (h: Operation<CasInput, CasOutput>[], o: Operation<CasInput, CasOutput>) => ({
    asInfo: checkLinearizable(CAS_MODEL, h).kind,
    applied: checkLinearizable(CAS_MODEL, h.map((x) => (x === o ? applied(x) : x))).kind,
    never: checkLinearizable(CAS_MODEL, h.filter((x) => x !== o)).kind,
  });

  it('must have applied: a later op builds on its revision', () => {
    const u = info('u', 'r0', 'r1', 2);
    const h = [cas('s', null, 'r0', 'applied', 0, 1), u, cas('a', 'r1', 'r2', 'applied', 10, 11)];
    expect(verdicts(h, u)).toEqual({ asInfo: 'ok', applied: 'ok', never: 'violation' });
  });

  it('…but only after its call: no upper bound on its return, a firm lower bound on its effect', () => {
    // The op that builds on r1 completed before the :info op was even sent.
    const u = info('u', 'r0', 'r1', 20);
    const h = [cas('s', null, 'r0', 'applied', 0, 1), cas('a', 'r1', 'r2', 'applied', 10, 11), u];
    const r = checkLinearizable(CAS_MODEL, h);
    expect(r.kind).toBe('violation');
    // Still open long after every other op: it may take effect after the last answer of the history.
    const late = info('v', 'r1', 'r9', 2);
    expect(checkLinearizable(CAS_MODEL, [cas('s', null, 'r0', 'applied', 0, 1), late, cas('a', 'r0', 'r1', 'applied', 50, 60)]).kind).toBe('ok');
  });

  it('must not have applied: its effect would contradict an ok op', () => {
    // Applied before a's commit it takes r0 from under it; after, the head is no longer r0.
    const u = info('u', 'r0', 'rx', 2);
    const h = [cas('s', null, 'r0', 'applied', 0, 1), u, cas('a', 'r0', 'r1', 'applied', 3, 4), cas('b', 'r1', 'r2', 'applied', 5, 6)];
    expect(verdicts(h, u)).toEqual({ asInfo: 'ok', applied: 'violation', never: 'ok' });
  });

  it('may go either way: nothing answered depends on it', () => {
    const u = info('u', 'r0', 'r1', 2);
    // Refused ops constrain nothing (the spec does not say why a server refuses), and c built on r0 before u was sent.
    const h = [cas('s', null, 'r0', 'applied', 0, 1), cas('c', 'r0', 'r5', 'refused', 0.5, 1.5), u, cas('d', 'r1', 'r6', 'refused', 7, 8)];
    expect(verdicts(h, u)).toEqual({ asInfo: 'ok', applied: 'ok', never: 'ok' });
  });

  it('two :info ops on one base: at most one of them can explain what follows', () => {
    const u = info('u', 'r0', 'r1', 2);
    const v = info('v', 'r0', 'r2', 2);
    const s = cas('s', null, 'r0', 'applied', 0, 1);
    // One may have applied and the other not: a later op on either revision is fine…
    expect(checkLinearizable(CAS_MODEL, [s, u, v, cas('a', 'r1', 'r3', 'applied', 5, 6)]).kind).toBe('ok');
    // …but not ops on both, which would need both to have applied on r0.
    expect(checkLinearizable(CAS_MODEL, [s, u, v, cas('a', 'r1', 'r3', 'applied', 5, 6), cas('b', 'r2', 'r4', 'applied', 7, 8)]).kind).toBe('violation');
  });
});
