/** What every endpoint handler receives and returns. */
import type { IncomingHttpHeaders } from 'node:http';
import type { BugCheck } from './bugs.ts';
import type { Json } from './json.ts';
import type { Caller, State } from './state.ts';

/** A refusal: the status and a short machine code; the message names the field, never a secret. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Ctx {
  readonly state: State;
  readonly caller: Caller;
  readonly bug: BugCheck;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: Buffer;
  readonly params: Readonly<Record<string, string>>;
  readonly body: Json;
}

/** `data` of the success envelope; bigint values are written as JSON integers. */
export interface Reply {
  readonly status?: number;
  readonly data: Record<string, unknown> | null;
}

export type Handler = (ctx: Ctx) => Reply | Promise<Reply>;

/** Lets other requests run here, as an await on a database would (what the race bugs need). */
export function yieldTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
