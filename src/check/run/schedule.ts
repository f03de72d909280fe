/**
 * Which properties may run side by side, and in what steps. Over a real network a property pays the
 * round trips of its longest ordered case (a usage plan, a sequence of commits) however many of its
 * cases are in flight; running properties side by side hides those round trips behind each other.
 *
 * A property may run beside others when everything it touches is made by its own cases under fresh
 * identifiers: it needs only the device (and a second account's device, and a pouch), whose commits
 * go to fresh artifacts and whose usage reports to fresh sources. Its cases already run side by side
 * with each other, so another property's cases are no new kind of neighbour. A property that needs
 * the browser credential (devices approved, passkeys registered, browsers revoked: the account's own
 * state, which the roster's limits count), that may change the account (`account-changes`), that
 * needs the embedded reference alone, or that is measured alone (`concurrency: 1`: the cost probe, the
 * oversized body) runs alone, in the order of the selection, after those that run side by side.
 */
import type { Capability, Property } from '../property.ts';

/** Capabilities whose state the property's own cases make fresh: a property needing only these may run beside others. */
const FRESH_STATE: readonly Capability[] = ['device', 'second-account', 'pouch'];

export function runsBesideOthers(p: Pick<Property, 'needs' | 'concurrency'>): boolean {
  return p.concurrency !== 1 && p.needs.every((n) => FRESH_STATE.includes(n));
}

/** One step of the run: the indices (into the selection) run in it, and how many of them at once. */
export interface Step {
  readonly indices: readonly number[];
  readonly atOnce: number;
}

/**
 * The steps of a run: with `atOnce` above 1, first every property that may run beside others (at
 * most `atOnce` of them in flight), then each of the others alone, in the selection's order. With
 * `atOnce` 1, each property alone in the selection's order, as `compare`, the mutants and the readings
 * zoo need (they tell exchanges and findings apart by the one property in flight).
 */
export function stepsOf(props: readonly Pick<Property, 'needs' | 'concurrency'>[], atOnce: number): Step[] {
  const all = props.map((_, i) => i);
  if (atOnce <= 1) return all.map((i) => ({ indices: [i], atOnce: 1 }));
  const beside = props.flatMap((p, i) => (runsBesideOthers(p) ? [i] : []));
  const alone = props.flatMap((p, i) => (runsBesideOthers(p) ? [] : [i]));
  return [...(beside.length ? [{ indices: beside, atOnce: Math.min(atOnce, beside.length) }] : []), ...alone.map((i) => ({ indices: [i], atOnce: 1 }))];
}

/**
 * How many properties' time the budget is still shared over: a step's properties not yet started
 * count for their share of the step (`atOnce` of them take the time of one), the others one each.
 */
export function unitsLeft(steps: readonly Step[], started: ReadonlySet<number>, runnable: readonly boolean[]): number {
  let units = 0;
  for (const s of steps) {
    const left = s.indices.filter((i) => runnable[i] && !started.has(i)).length;
    units += left / s.atOnce;
  }
  return Math.max(1, Math.ceil(units));
}
