/**
 * Which readings each property of a run consulted, recorded around the property without changing
 * what it judges: the readings its cases read (the case context's own record, `consulted` and
 * `steered`: an answer read, a request shaped, a call signed) and those its generators read from the
 * profile (`arbitrary`, `coverage`). A property that consulted none of the readings a zoo case
 * switches sent the same requests and judged the same way whatever their values (same seed), so the
 * told run of the case need not run it again (test/precision/zoo.ts).
 */
import type { CaseContext, Property } from '../../src/check/property.ts';
import { isAssumptionName, type AssumptionName } from '../../src/spec/index.ts';
import type { Profile } from '../../src/target/profile.ts';

export interface ConsultRecord {
  /** The properties, each wrapped to record what it consults; run these in place of the originals. */
  readonly props: readonly Property[];
  /** The readings a property (by id) consulted so far, by its own cases or through the run's shared diagnosis. */
  readingsOf(id: string): ReadonlySet<AssumptionName>;
}

interface Seen {
  readonly own: Map<string, Set<AssumptionName>>;
  /** Properties whose cases read the run's shared memory of its environment (`ctx.environment`). */
  readonly diagnosed: Set<string>;
}

export function recordConsults(props: readonly Property[]): ConsultRecord {
  const seen: Seen = { own: new Map(), diagnosed: new Set() };
  const wrapped = props.map((p) => {
    seen.own.set(p.id, new Set());
    return wrap(p, seen);
  });
  return { props: wrapped, readingsOf: (id) => readingsOf(seen, id) };
}

/**
 * The run's memory of its environment (`ctx.environment`: the plain request of each endpoint, whether
 * the browser path serves commits) is filled by whichever case asks first and kept for the run: a
 * property that read it may rest on readings another property's case consulted. Every property that
 * read it counts as consulting whatever any of them consulted.
 */
function readingsOf(seen: Seen, id: string): ReadonlySet<AssumptionName> {
  const own = seen.own.get(id) ?? new Set<AssumptionName>();
  if (!seen.diagnosed.has(id)) return own;
  return new Set([...own, ...[...seen.diagnosed].flatMap((d) => [...(seen.own.get(d) ?? [])])]);
}

function wrap(p: Property, seen: Seen): Property {
  const mine = seen.own.get(p.id)!;
  const cov = p.coverage;
  return Object.freeze({
    ...p,
    arbitrary: (profile: Profile) => p.arbitrary(recording(profile, mine)),
    ...(cov ? { coverage: (profile: Profile) => cov.call(p, recording(profile, mine)) } : {}),
    async check(ctx: CaseContext, input: unknown) {
      const environment = ctx.environment;
      // Read through a getter on the very context the run made, the same memory returned: what is keyed on it stays keyed.
      Object.defineProperty(ctx, 'environment', { get: () => (seen.diagnosed.add(p.id), environment), configurable: true, enumerable: true });
      try {
        return await p.check(ctx, input);
      } finally {
        // The case context's record (src/check/run/context.ts `RecordingContext`): read after the case, whatever it returned.
        for (const key of ['consulted', 'steered'] as const) {
          const set: unknown = (ctx as unknown as Record<string, unknown>)[key];
          if (set instanceof Set) for (const n of set) if (typeof n === 'string' && isAssumptionName(n)) mine.add(n);
        }
      }
    },
  });
}

/** The profile with its readings read through a proxy that notes each one read. */
function recording(profile: Profile, seen: Set<AssumptionName>): Profile {
  const assumptions = new Proxy(profile.assumptions, {
    get(target, key, receiver) {
      if (typeof key === 'string' && isAssumptionName(key)) seen.add(key);
      const value: unknown = Reflect.get(target, key, receiver);
      return value;
    },
    // A spread or a listing reads every reading at once: all of them count as consulted.
    ownKeys(target) {
      for (const k of Reflect.ownKeys(target)) if (typeof k === 'string' && isAssumptionName(k)) seen.add(k);
      return Reflect.ownKeys(target);
    },
  });
  return { ...profile, assumptions };
}
