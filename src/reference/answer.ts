/**
 * What the server writes back: the envelope of 2.1 for a handler's reply, the error envelope (or
 * plain text under `error-response=any-4xx`) for a refusal, the raw answer to a malformed HTTP
 * request, and the `stall-periodic` delay and `Server-Timing` header of every answer.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Reply } from './context.ts';
import type { Served } from './served.ts';

export interface Outcome {
  status: number;
  body?: unknown;
  /** A plain-text body instead of JSON. */
  plain?: string;
  headers?: Readonly<Record<string, string>>;
}

/** Refusals that stay HTTP status codes under `error-response=ok-false-any-status`: a gateway's, not the service's. */
const KEPT_AS_HTTP: ReadonlySet<number> = new Set([401, 403, 405, 413, 429]);

/** The envelope's `meta`, which `envelope-missing-request-id` leaves empty. */
export function metaOf(s: Served, requestId: string): Record<string, string> {
  return s.faults.has('envelope-missing-request-id') ? {} : { request_id: requestId };
}

/** A handler's reply in the success envelope, with the members `extra-response-members` adds. */
export function replyOutcome(s: Served, reply: Reply, requestId: string): Outcome {
  const extra = s.unnamed.has('extra-response-members');
  // Members added to the data the handler answered, whatever it is: a data that is no object stays what it is.
  const data = extra && typeof reply.data === 'object' && reply.data !== null && !Array.isArray(reply.data) ? { ...reply.data, server_time: new Date().toISOString() } : reply.data;
  const meta = metaOf(s, requestId);
  return { status: reply.status, body: { ok: true, data, meta: extra ? { ...meta, served_by: 'reference' } : meta } };
}

/**
 * An error's body: the envelope of 2.1 with ok false, or plain text under `error-response=any-4xx`
 * (the reference answers the envelope with ok false, which every reading allows; asked for `any-4xx`
 * by name, it answers the loosest body that reading allows). Under `ok-false-any-status` a refusal
 * of the request's content comes as a 200 with ok false (the status says the message got through;
 * the envelope says it was refused), as some APIs answer; what a gateway would refuse before reading
 * the request (credentials, method, size, rate) keeps its 4xx.
 */
export function errorOutcome(s: Served, status: number, requestId: string, code: string, message: string, data: unknown = {}, headers?: Readonly<Record<string, string>>): Outcome {
  const withHeaders = headers ? { headers } : {};
  if (s.readings.chosenOf('error-response') === 'any-4xx') return { status, plain: `${code}: ${message}\n`, ...withHeaders };
  const okFalseStatus = s.readings.is('error-response', 'ok-false-any-status');
  const sent = okFalseStatus && !KEPT_AS_HTTP.has(status) && status >= 400 && status < 500 ? 200 : status;
  return { status: sent, body: { ok: false, data, meta: metaOf(s, requestId), error: { code, message } }, ...withHeaders };
}

/**
 * Writes the answer, not before `notBefore` (`stall-periodic`); a delayed write's timer is kept in
 * `timers` so that closing the server cancels it. `Server-Timing: cpu` is the process's CPU time from
 * the request's arrival to its answer: the in-process reference's own work on the request, without
 * the harness's building and signing of it, which the cost probe reads (a remote target's latency is
 * what it measures there). Only a request that asked for it (`CPU_TIMING_HEADER`) has `cpuAtArrival`.
 */
export function writeOutcome(res: ServerResponse, out: Outcome, notBefore: number, cpuAtArrival: NodeJS.CpuUsage | undefined, timers: Set<NodeJS.Timeout>): void {
  const text = out.plain ?? JSON.stringify(out.body);
  const timing = cpuAtArrival === undefined ? {} : { 'server-timing': `cpu;dur=${cpuMsSince(cpuAtArrival).toFixed(3)}` };
  const write = (): void => {
    if (res.destroyed || res.writableEnded) return;
    res.writeHead(out.status, {
      'content-type': out.plain === undefined ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      ...timing,
      ...out.headers,
    });
    res.end(text);
  };
  const wait = notBefore - Date.now();
  if (wait <= 0) return write();
  const t = setTimeout(() => {
    timers.delete(t);
    write();
  }, wait);
  timers.add(t);
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** A request node:http could not parse: 431 for oversized headers, 400 otherwise, written on the raw socket, which then closes. */
export function answerClientError(s: Served, err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const out = errorOutcome(s, status, randomUUID(), 'bad_http', 'malformed HTTP request');
  const text = out.plain ?? JSON.stringify(out.body);
  const type = out.plain === undefined ? 'application/json' : 'text/plain';
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: ${type}; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
}
