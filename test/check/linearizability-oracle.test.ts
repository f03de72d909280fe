/**
 * The linearizability checker against an independent oracle (issue 31): a brute-force checker,
 * written plainly here and sharing nothing with the checker (not even its model), that tries every
 * order of the operations. Histories of at most 8 compare-and-set operations on one or two
 * artifacts, `:info` operations (answer lost) among them, come from fast-check in two families:
 * linearizable by construction (a sequential run stretched into overlapping intervals) and the same
 * runs broken at one place (an outcome flipped, a base changed, an interval moved), which may or may
 * not still be linearizable. Checker and oracle must agree on every one, and both families must give
 * both verdicts often enough for the agreement to mean something.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CAS_MODEL, checkLinearizable, type CasInput, type CasOutput, type Operation } from '../../src/check/model/linearizability/index.ts';

type Op = Operation<CasInput, CasOutput>;

// ---- the oracle ---------------------------------------------------------------------------------

/**
 * Is there an order of the operations in which every answered op appears and ops whose answer was
 * lost (no `ret`) appear or not, that keeps real time (a before b when a answered before b was sent;
 * an op sent at the moment another answered overlaps it), and in which each artifact's head goes as
 * the answers say: an applied op finds its base at the head and moves it to its revision, a refused
 * op changes nothing, an op whose answer was lost either applies (its base must then be the head) or
 * is left out? Every order is tried, one op at a time.
 */
function oracle(ops: readonly Op[]): boolean {
  const answered = ops.filter((o) => o.ret !== undefined).length;
  const placed: boolean[] = ops.map(() => false);
  const mustPrecede = (a: Op, b: Op): boolean => a.ret !== undefined && a.ret < b.call;

  const tryOrders = (heads: Map<string, string | null>, placedAnswered: number): boolean => {
    if (placedAnswered === answered) return true;
    for (let i = 0; i < ops.length; i++) {
      if (placed[i]) continue;
      const o = ops[i]!;
      // o may come next only if no unplaced answered op had to come before it.
      if (ops.some((p, j) => j !== i && !placed[j] && mustPrecede(p, o))) continue;
      const head = heads.has(o.input.key) ? heads.get(o.input.key)! : null;
      let after: Map<string, string | null> | undefined;
      if (o.output === 'refused') after = heads;
      else if (head === o.input.base) after = new Map(heads).set(o.input.key, o.input.next);
      if (after === undefined) continue; // an applied (or lost-answer) op on a base that is not the head
      placed[i] = true;
      const found = tryOrders(after, placedAnswered + (o.ret !== undefined ? 1 : 0));
      placed[i] = false;
      if (found) return true;
    }
    // Lost-answer ops never placed are the ones that never took effect.
    return false;
  };
  return tryOrders(new Map(), 0);
}

// ---- generated histories ------------------------------------------------------------------------

interface Plan {
  readonly key: number;
  /** Which revision to build on: the head (0), an older one (1), one nobody wrote (2). */
  readonly base: 0 | 1 | 2;
  readonly lost: boolean;
  /** For a lost-answer op: whether it took effect. */
  readonly tookEffect: boolean;
  /** How far before and after its linearization point its interval reaches. */
  readonly before: number;
  readonly after: number;
}

const arbPlan: fc.Arbitrary<Plan> = fc.record({
  key: fc.nat({ max: 1 }),
  base: fc.constantFrom<Plan['base']>(0, 0, 0, 1, 2),
  lost: fc.nat({ max: 4 }).map((n) => n === 0),
  tookEffect: fc.boolean(),
  before: fc.nat({ max: 12 }),
  after: fc.nat({ max: 12 }),
});

/** A sequential run, one op every 4 time units, stretched into intervals around those moments: linearizable by construction. */
function linearizableHistory(plans: readonly Plan[], keys: number): Op[] {
  const seen = new Map<string, (string | null)[]>();
  return plans.map((p, i) => {
    const key = `k${p.key % keys}`;
    const revisions = seen.get(key) ?? [null];
    seen.set(key, revisions);
    const head = revisions[revisions.length - 1]!;
    const base = p.base === 0 ? head : p.base === 1 ? (revisions[Math.max(0, revisions.length - 2)] ?? null) : `ghost${i}`;
    const next = `${key}r${i}`;
    const canApply = base === head;
    const effect = p.lost ? canApply && p.tookEffect : canApply;
    if (effect) revisions.push(next);
    const at = i * 4;
    return {
      id: i,
      client: `c${i}`,
      input: { key, base, next, what: 'update' },
      output: p.lost ? undefined : canApply ? 'applied' : 'refused',
      call: Math.max(0, at - p.before),
      ret: p.lost ? undefined : at + p.after,
    };
  });
}

type Break = { readonly at: number; readonly how: 'flip' | 'rebase' | 'shift' | 'lose' | 'answer' };
const arbBreak: fc.Arbitrary<Break> = fc.record({ at: fc.nat(), how: fc.constantFrom<Break['how']>('flip', 'rebase', 'shift', 'lose', 'answer') });

/** The history broken at one op: its outcome flipped, its base moved to another op's revision, its interval moved, its answer lost, or a lost answer given. */
function broken(ops: readonly Op[], b: Break): Op[] {
  const i = b.at % ops.length;
  const o = ops[i]!;
  const other = ops[(i + 1) % ops.length]!;
  const changed: Op = (() => {
    switch (b.how) {
      case 'flip':
        return o.ret === undefined ? o : { ...o, output: o.output === 'applied' ? 'refused' : 'applied' };
      case 'rebase':
        return { ...o, input: { ...o.input, base: other.input.next } };
      case 'shift':
        return { ...o, call: o.call + 9, ...(o.ret !== undefined ? { ret: o.ret + 9 } : {}) };
      case 'lose':
        return { ...o, output: undefined, ret: undefined };
      case 'answer':
        return o.ret !== undefined ? o : { ...o, output: 'applied', ret: o.call + 3 };
    }
  })();
  return ops.map((x, j) => (j === i ? changed : x));
}

const arbHistory = fc.record({
  plans: fc.array(arbPlan, { minLength: 1, maxLength: 8 }),
  keys: fc.constantFrom(1, 1, 2),
  breaks: fc.option(arbBreak, { freq: 2 }),
});

describe('the checker against a brute-force oracle (≤ 8 ops, :info included)', () => {
  it('the oracle itself: a lost update is refuted, an :info op may explain a later base or be left out', () => {
    const op = (id: number, base: string | null, next: string, output: CasOutput | undefined, call: number, ret: number | undefined): Op => ({ id, client: `c${id}`, input: { key: 'x', base, next, what: 'update' }, output, call, ret });
    expect(oracle([op(0, null, 'a', 'applied', 0, 1), op(1, 'a', 'b', 'applied', 2, 5), op(2, 'a', 'c', 'applied', 3, 6)])).toBe(false);
    expect(oracle([op(0, null, 'a', 'applied', 0, 1), op(1, 'a', 'b', undefined, 2, undefined), op(2, 'b', 'c', 'applied', 8, 9)])).toBe(true);
    expect(oracle([op(0, null, 'a', 'applied', 0, 1), op(1, 'a', 'x', undefined, 2, undefined), op(2, 'a', 'b', 'applied', 3, 4)])).toBe(true);
    expect(oracle([op(0, null, 'a', 'applied', 0, 1), op(2, 'b', 'c', 'applied', 3, 4), op(1, 'a', 'b', undefined, 5, undefined)])).toBe(false);
  });

  it('agrees with the checker on every generated history, and both verdicts come up in both families', () => {
    const tally = { constructed: { ok: 0, violation: 0 }, broken: { ok: 0, violation: 0 }, info: 0, infoRefuted: 0 };
    fc.assert(
      fc.property(arbHistory, ({ plans, keys, breaks }) => {
        const good = linearizableHistory(plans, keys);
        const ops = breaks === null ? good : broken(good, breaks);
        const expected = oracle(ops) ? 'ok' : 'violation';
        const got = checkLinearizable(CAS_MODEL, ops).kind;
        expect(got).toBe(expected);
        if (breaks === null) expect(expected, 'a history built linearizable').toBe('ok');
        tally[breaks === null ? 'constructed' : 'broken'][expected]++;
        if (ops.some((o) => o.ret === undefined)) {
          tally.info++;
          if (expected === 'violation') tally.infoRefuted++;
        }
      }),
      { numRuns: 20_000, seed: 31 },
    );
    // Enough of each kind for the agreement to matter: many refuted histories, many with :info ops.
    expect(tally.constructed.ok).toBeGreaterThan(5_000);
    expect(tally.broken.violation).toBeGreaterThan(1_500);
    expect(tally.broken.ok).toBeGreaterThan(3_000);
    expect(tally.info).toBeGreaterThan(6_000);
    expect(tally.infoRefuted).toBeGreaterThan(600);
  });
});
