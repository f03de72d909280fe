/**
 * A rejection on its way to the client: status, a stable machine code and a message that says what
 * was wrong. Error bodies are not shown in the spec (section 7); the reference answers the envelope
 * of 2.1 with `ok: false` and an `error` object.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra response headers (e.g. `connection: close` after an oversized body). */
    readonly headers: Readonly<Record<string, string>> = {},
    /** The error envelope's `data` (default `{}`), e.g. the results of ops a refused per-op commit still applied. */
    readonly data: Readonly<Record<string, unknown>> = {},
  ) {
    // A refusal is an answer, not a fault: its stack is never read, and capturing one under the
    // server's async frames cost ~25 µs a refusal (10× the rest of the construction).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}

export const badRequest = (code: string, message: string): HttpError => new HttpError(400, code, message);
