/** What every endpoint handler receives, and what it answers. */
import type { IncomingHttpHeaders } from 'node:http';
import type { Endpoint } from '../spec/index.ts';
import type { FaultSet } from './faults.ts';
import type { Caller, Directory, Fixture } from './fixture.ts';
import type { ReadingSet } from './readings.ts';
import type { Store } from './store.ts';

export interface RequestContext {
  readonly endpoint: Endpoint;
  readonly params: Readonly<Record<string, string>>;
  readonly caller: Caller;
  /** The parsed body, already valid against the endpoint's schema. */
  readonly body: unknown;
  readonly rawBody: Uint8Array;
  readonly headers: IncomingHttpHeaders;
  readonly faults: FaultSet;
  /** The readings this server serves where the spec is silent (readings.ts). */
  readonly readings: ReadingSet;
  readonly store: Store;
  readonly directory: Directory;
  /** The ids the fixture lists (pouches, cli-auth requests, browsers) for the `profile-ids`/`must-exist` readings. */
  readonly fixture: Fixture;
}

/** A success: the envelope's `data` and the status (200 unless said otherwise). */
export interface Reply {
  readonly status: number;
  readonly data: unknown;
}

export type Handler = (ctx: RequestContext) => Reply | Promise<Reply>;

/** `envelope-wrong-types`: integers read from a bigint column come out as strings. */
export function integerOut(n: number, faults: FaultSet): number | string {
  return faults.has('envelope-wrong-types') ? String(n) : n;
}
