/**
 * The random phase, in two steps. Exploration: the property's cases, exactly as fast-check draws
 * them for the seed (`fc.sample` walks the same stream as `fc.check`), run several at a time; every
 * case draws fresh ids, and a property whose cases share state says so (`Property.concurrency`).
 * Shrinking: the first failing case of each distinct failure (by its place in the stream) is handed
 * to fast-check alone (`path`), which re-runs it and shrinks it one case at a time, keeping only
 * shrinks that fail the same way. So a seed gives the same cases, the same counterexamples and the
 * same replay tokens whatever the concurrency, and a false alarm in one attack hides no real defect
 * in another (Schemathesis reports every failing check of an operation).
 */
import fc from 'fast-check';
import type { Outcome, Property } from '../property.ts';
import { encodeReplayToken } from './replay-token.ts';
import { drawnInventory, readingsStamp } from './token-stamp.ts';
import { runCase, type CaseDeps, type CaseRun } from './case-runner.ts';
import { caseFinding } from './evidence.ts';
import type { OutcomeSink } from './outcome-sink.ts';
import { pooled } from './pool.ts';
import { DrawStream, MAX_SKIPS_PER_RUN, type Drawn } from './draws.ts';
import { EvidenceRetention } from './retention.ts';
import type { Finding } from './result.ts';

/** Distinct failures reported (and shrunk) per property at most: the rest are counted in the ledger, not shown. */
export const MAX_DISTINCT_FAILURES = 8;
/**
 * Cases one shrink may try against the target. Every try is a live case, and a refused one brings its
 * controls: a 50-op commit refused by a boundary fault shrank 558 times in ~10,500 requests (12 s of a
 * 16 s run). Hypothesis bounds its shrink phase the same way. Counted in tries, not time, so the same
 * seed still ends on the same counterexample; the finding says when the budget ended it, and its replay
 * token shrinks on from there.
 */
export const MAX_SHRINK_TRIES = 150;

/** What makes two failures the same finding: their kind, their judgement and the part of the case that broke. */
export function failureKey(o: Outcome): string | undefined {
  if (o.ok || (o.kind !== 'violation' && o.kind !== 'server-error')) return undefined;
  return `${o.kind}|${o.kind === 'violation' ? o.judgement : ''}|${o.part ?? ''}`;
}

export interface RandomRun {
  readonly deps: CaseDeps;
  readonly sink: OutcomeSink;
  readonly seed: number;
  readonly runs: number;
  readonly concurrency: number;
  /** A replay: fast-check's path. */
  readonly path?: string;
  readonly endOnFailure: boolean;
  /** False: each distinct failure reported as found (`--no-shrink`). */
  readonly shrink: boolean;
  readonly onCase?: (done: number) => void;
}

export interface RandomPhase {
  readonly ran: number;
  readonly findings: readonly Finding[];
  readonly crashed?: { readonly run: CaseRun; readonly replay: string };
  /** Every draw was discarded by `stillValid`: the generator and its label disagree. */
  readonly allDiscarded?: number;
}

/** A case's token, stamped with the readings in force and the fingerprint of the case its seed draws there. */
const token = (prop: Property, arb: fc.Arbitrary<unknown>, r: Pick<RandomRun, 'deps' | 'seed'>, path: string) =>
  encodeReplayToken({ property: prop.id, seed: r.seed, path, runs: 1, readings: readingsStamp(r.deps.profile.assumptions), inventory: drawnInventory(arb, r.seed, path) });

export async function runRandomPhase(prop: Property, arb: fc.Arbitrary<unknown>, r: RandomRun): Promise<RandomPhase> {
  if (r.path !== undefined) return replayPath(prop, arb, r, r.path);
  const { counter, signal } = r.deps;
  const stream = new DrawStream(prop, arb, r.seed, r.runs);
  let done = 0;
  let failed = false;
  const stopped = () => signal.aborted || counter.unreachable || counter.crash !== undefined || (r.endOnFailure && failed);
  const retention = new EvidenceRetention();
  const firsts = new Map<string, { drawn: Drawn; run: CaseRun }>();
  let crashed: RandomPhase['crashed'];
  // Folded in the order the cases were drawn, whatever order they ended in: a case waits for those before it.
  const ended = new Map<number, { drawn: Drawn; run: CaseRun }>();
  let folded = 0;
  const fold = (): void => {
    for (let e = ended.get(folded); e; e = ended.get(++folded)) {
      ended.delete(folded);
      const { drawn, run } = e;
      if (run.crashed && !crashed) crashed = { run, replay: token(prop, arb, r, String(drawn.index)) };
      const failing = r.sink.take('random', run);
      const key = failing && failureKey(failing);
      if (key !== undefined && !firsts.has(key)) firsts.set(key, { drawn, run });
    }
  };
  await pooled(
    () => stream.take(),
    r.concurrency,
    async (drawn, k) => {
      // Named by its place in the seed's stream (its replay token's path), not by the order it ran in.
      const run = await runCase(prop, drawn.input, r.deps, `r${drawn.index}`);
      r.onCase?.(++done);
      if (!run.outcome.ok && (run.outcome.kind === 'violation' || run.outcome.kind === 'server-error')) failed = true;
      ended.set(k, { drawn, run: retention.hold(k, run, failureKey(run.outcome) ?? '') });
      fold();
    },
    stopped,
    r.deps.slots,
  );
  if (stream.kept === 0 && stream.skipped > 0) return { ran: 0, findings: [], allDiscarded: stream.skipped };
  const findings: Finding[] = [];
  if (crashed) return { ran: done, findings, crashed };
  // Mutation testing ends at the first failure, unshrunk; a run reports each distinct one, shrunk unless told not to.
  const distinct = [...firsts.values()].slice(0, r.endOnFailure ? 1 : MAX_DISTINCT_FAILURES);
  for (const first of distinct) findings.push(r.endOnFailure || !r.shrink ? unshrunk(prop, arb, r, first) : await shrunk(prop, arb, r, first));
  return { ran: done, findings };
}

/** The failing case as found (mutation testing ends at the first failure, unshrunk). */
function unshrunk(prop: Property, arb: fc.Arbitrary<unknown>, r: RandomRun, first: { drawn: Drawn; run: CaseRun }, note = ''): Finding {
  const o = first.run.outcome;
  if (o.ok) throw new Error('pouchproof defect: a passing case reported as failing');
  return caseFinding(prop, { ...o, message: `${o.message}${note}` }, { input: first.run.input, exchanges: first.run.exchanges }, r.deps.profile.secrets, {
    replay: token(prop, arb, r, String(first.drawn.index)),
    shrinks: 0,
    detectedAfterRequests: first.run.requestsAtEnd,
  });
}

/** fast-check re-runs the failing case alone and shrinks it, one case at a time. */
async function shrunk(prop: Property, arb: fc.Arbitrary<unknown>, r: RandomRun, first: { drawn: Drawn; run: CaseRun }): Promise<Finding> {
  let last: CaseRun | undefined;
  let tried = 0;
  let spent = false;
  const predicate = async (input: unknown): Promise<boolean> => {
    if (r.deps.signal.aborted || r.deps.counter.crash) return true;
    if (prop.stillValid && !prop.stillValid(input)) fc.pre(false);
    // Past the budget every further candidate passes untried: fast-check ends on the last failing one.
    if (tried > MAX_SHRINK_TRIES) return (spent = true);
    // fast-check tries one case at a time, in an order the seed and the answers fix: the k-th is named by k.
    const run = await runCase(prop, input, r.deps, caseName(String(first.drawn.index), tried++));
    // A shrink that fails another way is another finding's: this one keeps to its own.
    if (run.cut || run.crashed || failureKey(run.outcome) !== failureKey(first.run.outcome)) return true;
    last = run;
    return false;
  };
  const details = await fc.check(fc.asyncProperty(arb, predicate), { seed: r.seed, numRuns: 1, path: String(first.drawn.index), maxSkipsPerRun: MAX_SKIPS_PER_RUN });
  if (!details.failed || !last || details.counterexamplePath === null) {
    // Found once, not again when re-run: reported as found, with the case's own replay token.
    return unshrunk(prop, arb, r, first, ' (the case did not fail again when re-run to shrink it)');
  }
  const o = last.outcome;
  if (o.ok) throw new Error('pouchproof defect: a passing case kept as the shrunk counterexample');
  const note = spent ? ` (shrinking stopped after ${MAX_SHRINK_TRIES} tries: its replay token shrinks on from there)` : '';
  return caseFinding(prop, { ...o, message: `${o.message}${note}` }, { input: last.input, exchanges: last.exchanges }, r.deps.profile.secrets, {
    replay: token(prop, arb, r, details.counterexamplePath),
    shrinks: details.numShrinks,
    detectedAfterRequests: first.run.requestsAtEnd,
  });
}

/**
 * The stable name of the k-th case fast-check tries from `path` (a shrink, or a replay token's run):
 * first the case at place i of the stream, named as the random phase named it (`r<i>`, so it meets the
 * same faults again), then the shrink steps (`s<i>.<k>`), the same in the run that found it and in a
 * replay of its unshrunk token. A shrunk path's steps had names a replay cannot know: named after the path.
 */
function caseName(path: string, k: number): string {
  if (path.includes(':')) return `s${path}.${k}`;
  return k === 0 ? `r${path}` : `s${path}.${k}`;
}

/** A replay token's fast-check path: that case alone (and its shrink steps), then shrinking again from there. */
async function replayPath(prop: Property, arb: fc.Arbitrary<unknown>, r: RandomRun, path: string): Promise<RandomPhase> {
  let last: CaseRun | undefined;
  let ran = 0;
  let crashed: RandomPhase['crashed'];
  let tried = 0;
  const predicate = async (input: unknown): Promise<boolean> => {
    if (r.deps.signal.aborted || crashed) return true;
    if (prop.stillValid && !prop.stillValid(input)) fc.pre(false);
    const run = await runCase(prop, input, r.deps, caseName(path, tried++));
    r.onCase?.(++ran);
    if (run.crashed) {
      crashed = { run, replay: token(prop, arb, r, path) };
      return true;
    }
    const failing = r.sink.take('random', run);
    if (!failing) return true;
    last = run;
    return false;
  };
  const details = await fc.check(fc.asyncProperty(arb, predicate), { seed: r.seed, numRuns: r.runs, path, maxSkipsPerRun: MAX_SKIPS_PER_RUN });
  const findings: Finding[] = [];
  if (details.failed && last && !last.outcome.ok && details.counterexamplePath !== null) {
    findings.push(caseFinding(prop, last.outcome, { input: last.input, exchanges: last.exchanges }, r.deps.profile.secrets, {
      replay: token(prop, arb, r, details.counterexamplePath),
      shrinks: details.numShrinks,
      detectedAfterRequests: last.requestsAtEnd,
    }));
  }
  return { ran, findings, ...(crashed ? { crashed } : {}) };
}
