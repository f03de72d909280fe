/**
 * What a load scenario is. A scenario builds a `RequestSource` per worker; the engine asks it for
 * the next request, tells it how each one ended, and after the run lets it check invariants with a
 * few sequential requests. Scenario files live in `scenarios/` (one each); the engine knows them
 * only through this interface and a module URL, so src/load never imports the layer above it.
 */
import type { Profile } from '../target/profile.ts';

export interface LoadRequest {
  readonly method: 'POST' | 'PUT';
  /** Path and query, relative to the target's origin (the profile's base URL path is prepended). */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** What kind of request this is, for per-kind counts (mixed scenarios). */
  readonly kind: string;
  /** Scenario-private bookkeeping. */
  readonly token?: unknown;
}

export interface LoadResponse {
  readonly status: number;
  readonly body: string;
}

export interface RequestOutcome {
  /** The request did what the scenario expects (a commit applied, rows accepted). */
  readonly ok: boolean;
  /** Goodput units it delivered: ops applied, rows accepted. */
  readonly units: number;
  /** Why it did not succeed: "http 409", "timeout", "not applied: …". */
  readonly reason?: string;
  /** The server failed to serve it (transport error, timeout, 5xx) rather than refusing it. */
  readonly error?: boolean;
}

export interface CheckResult {
  readonly name: string;
  readonly passed: boolean;
  readonly message: string;
  readonly figures?: Readonly<Record<string, number>>;
}

/** Sends one request outside the measured run (invariant checks). */
export type Send = (r: LoadRequest) => Promise<LoadResponse>;

export interface RequestSource {
  /** The next request, or undefined when none can be built right now (e.g. every artifact is busy). */
  next(): LoadRequest | undefined;
  complete(req: LoadRequest, res: LoadResponse | Error): RequestOutcome;
  /**
   * Called once after the warm-up and before the measured window (and before the shared start of
   * the workers), with nothing in flight: a source may build requests ahead here, so that the window
   * measures the target and not the building. The engine reports the time it took separately. A
   * long preparation should yield now and then, so that idle keep-alive connections are still
   * serviced (a server closing them unseen would fail the first requests of the window).
   */
  prepare?(): void | Promise<void>;
  /**
   * How many requests the engine may take from `next` ahead of their send, building them in idle
   * moments and in batches (a batch keeps signing code and tables hot in the CPU's caches, and in the
   * open model the building happens off the latency path). Only for sources whose next request does
   * not depend on answers still to come; absent or 0: each request is taken when it is sent.
   */
  readonly prefetch?: number;
  /** After the run: invariant checks with sequential requests. */
  check?(send: Send): Promise<CheckResult[]>;
  /** Scenario figures, summed across workers (e.g. conflicts, lost updates). */
  stats?(): Record<string, number>;
}

export type ParamValue = number | string;
export type Params = Readonly<Record<string, ParamValue>>;

export interface ParamDef {
  readonly name: string;
  readonly description: string;
  readonly default: ParamValue;
  readonly kind: 'int' | 'number' | 'string';
  readonly min?: number;
  readonly max?: number;
  readonly choices?: readonly string[];
}

export interface SourceContext {
  readonly workerIndex: number;
  readonly workers: number;
  readonly seed: number;
  readonly params: Params;
  readonly profile: Profile;
  /** Connections this worker holds (writers, for contention). */
  readonly connections: number;
}

/** One point of a sweep: the source params for one measured sub-run. */
export interface SweepPoint {
  readonly axis: string;
  readonly value: number;
  readonly params: Params;
}

export interface Scenario {
  readonly name: string;
  readonly description: string;
  /** What goodput counts. */
  readonly unit: 'ops' | 'rows' | 'units';
  readonly params: readonly ParamDef[];
  createSource(ctx: SourceContext): RequestSource;
  /** Connections when none are given (cost-curve: 1, so latency is the request's own, not queueing). */
  readonly defaultConnections?: number;
  /** A sweep scenario: one measured sub-run per point, same source, other params. */
  sweep?(params: Params): SweepPoint[];
}

/** Resolves raw `name=value` strings against a scenario's definitions; throws a one-line Error on bad input. */
export function resolveParams(s: Scenario, raw: Readonly<Record<string, ParamValue>> = {}): Params {
  const out: Record<string, ParamValue> = {};
  for (const name of Object.keys(raw)) {
    if (!s.params.some((p) => p.name === name)) {
      throw new Error(`scenario ${s.name} has no parameter "${name}"; it has: ${s.params.map((p) => p.name).join(', ') || 'none'}`);
    }
  }
  for (const p of s.params) {
    const given = raw[p.name];
    let v: ParamValue = given ?? p.default;
    if (p.kind !== 'string') {
      const n = typeof v === 'number' ? v : Number(v);
      if (!Number.isFinite(n) || (p.kind === 'int' && !Number.isInteger(n))) throw new Error(`parameter ${p.name} must be ${p.kind === 'int' ? 'an integer' : 'a number'}, got "${v}"`);
      if (p.min !== undefined && n < p.min) throw new Error(`parameter ${p.name} must be at least ${p.min}, got ${n}`);
      if (p.max !== undefined && n > p.max) throw new Error(`parameter ${p.name} must be at most ${p.max}, got ${n}`);
      v = n;
    } else {
      v = String(v);
      if (p.choices && !p.choices.includes(v)) throw new Error(`parameter ${p.name} must be one of ${p.choices.join(', ')}, got "${v}"`);
    }
    out[p.name] = v;
  }
  return Object.freeze(out);
}

export function num(p: Params, name: string): number {
  const v = p[name];
  if (typeof v !== 'number') throw new Error(`parameter ${name} is not a number`);
  return v;
}

export function text(p: Params, name: string): string {
  return String(p[name]);
}
