/**
 * One fresh TCP connection to the target's host and port, nothing sent: whether anything still
 * listens there. The runner confirms a target that went down with it (a refused connection is
 * evidence; a slow one is not), and `run` checks a target before it starts.
 */
import { connect } from 'node:net';

export interface ConnectProbe {
  readonly ok: boolean;
  /** `connected`, or why not (`connection refused`, `no answer within 3000 ms`, an error code). */
  readonly reason: string;
  /** The refusal is evidence that nothing listens (refused, reset, unreachable), as opposed to a slow answer. */
  readonly refused: boolean;
}

const REFUSALS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH']);

export function probeConnection(baseUrl: string, timeoutMs: number): Promise<ConnectProbe> {
  const u = new URL(baseUrl);
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve) => {
    const s = connect({ host: u.hostname.replace(/^\[|\]$/g, ''), port });
    const done = (p: ConnectProbe): void => {
      s.destroy();
      resolve(p);
    };
    s.setTimeout(timeoutMs, () => done({ ok: false, reason: `no answer within ${timeoutMs} ms`, refused: false }));
    s.once('connect', () => done({ ok: true, reason: 'connected', refused: false }));
    s.once('error', (e: NodeJS.ErrnoException) =>
      done({ ok: false, reason: e.code === 'ECONNREFUSED' ? 'connection refused' : e.code === 'ENOTFOUND' ? 'host not found' : (e.code ?? e.message), refused: REFUSALS.has(e.code ?? '') }));
  });
}
