/** What every endpoint handler receives, and what it answers. */
import type { IncomingHttpHeaders } from 'node:http';
import type { Endpoint, EndpointBody, EndpointId, EndpointParams } from '../spec/index.ts';
import type { FaultSet } from './faults.ts';
import type { Caller, Directory, Fixture } from './fixture.ts';
import type { ReadingSet } from './readings.ts';
import type { Reply } from './reply.ts';
import type { Store } from './store.ts';
import type { UnnamedSet } from './unnamed.ts';

export { dataOut, offSpec, type OffSpec, type Reply } from './reply.ts';

export interface RequestContext<Id extends EndpointId = EndpointId> {
  readonly endpoint: Endpoint;
  /** The path parameters by name, already valid against the endpoint's parameter nodes. */
  readonly params: EndpointParams<Id>;
  readonly caller: Caller;
  /** The parsed body, already valid against the endpoint's schema (as bent by the server's readings and faults). */
  readonly body: EndpointBody<Id>;
  readonly rawBody: Uint8Array;
  readonly headers: IncomingHttpHeaders;
  readonly faults: FaultSet;
  /** The readings this server serves where the spec is silent (readings.ts). */
  readonly readings: ReadingSet;
  /** Choices the spec allows that the registry does not name (unnamed.ts). */
  readonly unnamed: UnnamedSet;
  readonly store: Store;
  readonly directory: Directory;
  /** The ids the fixture lists (pouches, cli-auth requests, browsers) for the `profile-ids`/`must-exist` readings. */
  readonly fixture: Fixture;
  /** The connection the request came on: only a fault that keeps state with the connection reads it. */
  readonly connection?: Connection;
}

/** What the nemesis-only faults read of a request's connection: whether it has closed, and its close events. */
export interface Connection {
  readonly destroyed: boolean;
  once(event: 'end' | 'error' | 'close', listener: () => void): unknown;
  off(event: 'end' | 'error' | 'close', listener: () => void): unknown;
}

/** The handler of one endpoint: its body and parameters typed by the spec model, its `data` too. */
export type Handler<Id extends EndpointId> = (ctx: RequestContext<Id>) => Reply<Id> | Promise<Reply<Id>>;

/** One handler per endpoint; a new endpoint in the model does not compile until it has one. */
export type Handlers = { readonly [Id in EndpointId]: Handler<Id> };
