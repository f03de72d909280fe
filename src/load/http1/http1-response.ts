/**
 * An incremental HTTP/1.1 response parser for the load engine's own connections (RFC 9112): the
 * status, whether the connection stays open, and the body as text, capped. It reads only what the
 * engine needs — no header map is built — which is most of why a request costs less here than
 * through a general client. Framing follows RFC 9112 section 6.3: no body for 1xx, 204 and 304;
 * Transfer-Encoding (chunked last: chunked; otherwise until close) over Content-Length; a
 * Content-Length that is not one decimal number is an error; otherwise the body runs until close.
 * Interim 1xx answers are skipped; 101 is an error (the engine never asks to switch protocols).
 * Lines may end in CRLF or a bare LF (section 2.2 lets a recipient accept both).
 *
 * `feed` takes bytes as they arrive (from a buffer the caller may reuse: whatever is kept is
 * copied) and says whether the response is complete; `close` says what the end of the connection
 * means for it. One parser serves one connection, `reset` between responses.
 */

/** Head bytes (status line, fields, and a chunked body's trailers) read at most. */
export const RESPONSE_HEAD_CAP_BYTES = 64 * 1024;
/** A chunk-size line longer than this is not a chunk size. */
const CHUNK_LINE_CAP = 1024;

export type FeedResult =
  | { readonly kind: 'more' }
  | { readonly kind: 'done'; readonly status: number; readonly body: string; readonly keepAlive: boolean; readonly keepAliveMs: number | undefined; readonly extra: boolean }
  | { readonly kind: 'over-cap' }
  | { readonly kind: 'error'; readonly message: string };

const MORE: FeedResult = { kind: 'more' };
const OVER_CAP: FeedResult = { kind: 'over-cap' };

enum State {
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkDataEnd,
  Trailers,
  UntilClose,
}

const LF = 0x0a;
const CR = 0x0d;

export class ResponseParser {
  private state = State.Head;
  /** Head (or chunk-size line, or trailer) bytes waiting for their end. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The search for the head's blank line, across pieces: 0 mid-line, 1 just after LF, 2 after LF CR. */
  private scan = 0;
  private status = 0;
  private keepAlive = true;
  private keepAliveMs: number | undefined;
  /** Body bytes still expected: in the body (Length) or in the current chunk (ChunkData). */
  private remaining = 0;
  private body: Buffer[] = [];
  private bodyBytes = 0;
  /** The whole body as text, when it arrived in one piece (no copy needed). */
  private bodyText: string | undefined;
  /** ChunkDataEnd: whether the CR of the chunk's closing CRLF was seen. */
  private sawCr = false;

  constructor(private readonly capBytes: number) {}

  reset(): void {
    this.state = State.Head;
    this.pending = [];
    this.pendingBytes = 0;
    this.scan = 0;
    this.status = 0;
    this.keepAlive = true;
    this.keepAliveMs = undefined;
    this.remaining = 0;
    this.body = [];
    this.bodyBytes = 0;
    this.bodyText = undefined;
    this.sawCr = false;
  }

  /** Bytes `buf[start, end)` arrived. */
  feed(buf: Buffer, start: number, end: number): FeedResult {
    let i = start;
    while (i < end) {
      const reached = this.step(buf, i, end);
      if (typeof reached !== 'number') return reached;
      i = reached;
    }
    return MORE;
  }

  /** Reads what the current state takes from `buf[i, end)`: the index it reached, or how this feed ends. */
  private step(buf: Buffer, i: number, end: number): number | FeedResult {
    switch (this.state) {
      case State.Head:
        return this.headBytes(buf, i, end);
      case State.Length:
        return this.lengthBytes(buf, i, end);
      case State.UntilClose:
        return this.bodyPart(buf, i, end, false) ? end : OVER_CAP;
      case State.ChunkSize:
        return this.chunkSizeLine(buf, i, end);
      case State.ChunkData:
        return this.chunkBytes(buf, i, end);
      case State.ChunkDataEnd:
        return this.chunkEnd(buf, i);
      case State.Trailers:
        return this.trailerLine(buf, i, end);
      default:
        return this.state satisfies never;
    }
  }

  private headBytes(buf: Buffer, i: number, end: number): number | FeedResult {
    const stop = this.headEnd(buf, i, end);
    if (this.pendingBytes + ((stop < 0 ? end : stop) - i) > RESPONSE_HEAD_CAP_BYTES) return error(`response head over ${RESPONSE_HEAD_CAP_BYTES} bytes`);
    if (stop < 0) {
      this.keep(buf, i, end);
      return MORE;
    }
    const text = this.takeText(buf, i, stop);
    const problem = this.head(text);
    if (problem !== undefined) return error(problem);
    // A 1xx interim answer leaves the state at Head: the real one follows.
    if (this.state === State.Length && this.remaining === 0) return this.finish(stop < end);
    return stop;
  }

  private lengthBytes(buf: Buffer, i: number, end: number): number | FeedResult {
    const n = Math.min(this.remaining, end - i);
    if (!this.bodyPart(buf, i, i + n, this.remaining === n && this.bodyBytes === 0)) return OVER_CAP;
    this.remaining -= n;
    if (this.remaining === 0) return this.finish(i + n < end);
    return i + n;
  }

  private chunkSizeLine(buf: Buffer, i: number, end: number): number | FeedResult {
    const nl = buf.indexOf(LF, i);
    if (nl < 0 || nl >= end) {
      if (this.pendingBytes + (end - i) > CHUNK_LINE_CAP) return error('chunk size line too long');
      this.keep(buf, i, end);
      return MORE;
    }
    const line = this.takeText(buf, i, nl + 1);
    const size = chunkSize(line);
    if (size === undefined) return error(`bad chunk size ${JSON.stringify(line.trim().slice(0, 40))}`);
    if (size === 0) this.state = State.Trailers;
    else {
      this.remaining = size;
      this.state = State.ChunkData;
    }
    return nl + 1;
  }

  private chunkBytes(buf: Buffer, i: number, end: number): number | FeedResult {
    const n = Math.min(this.remaining, end - i);
    if (!this.bodyPart(buf, i, i + n, false)) return OVER_CAP;
    this.remaining -= n;
    if (this.remaining === 0) {
      this.state = State.ChunkDataEnd;
      this.sawCr = false;
    }
    return i + n;
  }

  /** One byte of the CRLF that closes a chunk's data. */
  private chunkEnd(buf: Buffer, i: number): number | FeedResult {
    const b = buf[i];
    if (b === CR && !this.sawCr) this.sawCr = true;
    else if (b === LF) this.state = State.ChunkSize;
    else return error('chunk data not followed by CRLF');
    return i + 1;
  }

  private trailerLine(buf: Buffer, i: number, end: number): number | FeedResult {
    const nl = buf.indexOf(LF, i);
    if (nl < 0 || nl >= end) {
      if (this.pendingBytes + (end - i) > RESPONSE_HEAD_CAP_BYTES) return error(`response trailers over ${RESPONSE_HEAD_CAP_BYTES} bytes`);
      this.keep(buf, i, end);
      return MORE;
    }
    const line = this.takeText(buf, i, nl + 1);
    // Trailer fields are read past; the empty line ends the message.
    if (line === '\n' || line === '\r\n') return this.finish(nl + 1 < end);
    return nl + 1;
  }

  /** The connection ended: the response is complete only if its body runs until close. */
  close(): FeedResult {
    // (A body until close never leaves its connection open: head() said so.)
    if (this.state === State.UntilClose) return this.finish(false);
    return error(this.state === State.Head && this.pendingBytes === 0 && this.status === 0 ? 'connection closed before any response' : 'connection closed before the response ended');
  }

  /** Reads a response head: its status, whether the connection stays open, and the body's framing. */
  private head(text: string): string | undefined {
    const line = statusLine(text);
    if (typeof line === 'string') return line;
    this.status = line.status;
    const f = headFields(text, line.next);
    if (typeof f === 'string') return f;
    this.keepAlive = line.http10 ? /,\s*keep-alive\s*(?:,|$)/.test(f.connection) : !/,\s*close\s*(?:,|$)/.test(f.connection);
    const hint = f.keepAliveHint === '' ? null : /timeout\s*=\s*(\d+)/i.exec(f.keepAliveHint);
    this.keepAliveMs = hint ? Number(hint[1]) * 1000 : undefined;
    const s = this.status;
    if (s === 101) return 'unexpected 101 Switching Protocols';
    if (s < 200) {
      // Interim: the final answer follows on the same connection.
      this.status = 0;
      return undefined;
    }
    this.frame(s, f);
    return undefined;
  }

  /** How the body of a final answer ends (RFC 9112 section 6.3). */
  private frame(status: number, f: HeadFields): void {
    if (status === 204 || status === 304) {
      this.state = State.Length;
      this.remaining = 0;
    } else if (f.chunked !== undefined) {
      // Both framings present: the sender must close after it (section 6.3), and so does the engine.
      if (f.length !== undefined) this.keepAlive = false;
      this.state = f.chunked ? State.ChunkSize : State.UntilClose;
      if (!f.chunked) this.keepAlive = false;
    } else if (f.length !== undefined) {
      this.state = State.Length;
      this.remaining = f.length;
    } else {
      this.state = State.UntilClose;
      this.keepAlive = false;
    }
  }

  /** Keeps body bytes; false once past the cap. `whole`: these bytes are the entire body. */
  private bodyPart(buf: Buffer, from: number, to: number, whole: boolean): boolean {
    const n = to - from;
    if (n === 0) return true;
    this.bodyBytes += n;
    if (this.bodyBytes > this.capBytes) return false;
    if (whole) this.bodyText = buf.toString('utf8', from, to);
    else this.body.push(Buffer.from(buf.subarray(from, to)));
    return true;
  }

  /**
   * The index just past the head's blank line in `buf[from, end)`, or -1, the scan resuming with the
   * next piece. A blank line follows a line's LF: it is LF LF or LF CR LF.
   */
  private headEnd(buf: Buffer, from: number, end: number): number {
    if (this.scan === 0) {
      // Native searches first, bounded to this piece (a reused read buffer holds stale bytes past it).
      const piece = buf.subarray(from, end);
      const a = piece.indexOf(LF_CR_LF);
      const b = piece.indexOf(LF_LF);
      if (a >= 0 && (b < 0 || a < b)) return from + a + 3;
      if (b >= 0) return from + b + 2;
      // None here: only the piece's last bytes matter for a blank line that straddles pieces.
      from = Math.max(from, end - 2);
    }
    let s = this.scan;
    for (let i = from; i < end; i++) {
      const c = buf[i];
      if (c === LF) {
        if (s !== 0) {
          this.scan = 0;
          return i + 1;
        }
        s = 1;
      } else if (c === CR) s = s === 1 ? 2 : 0;
      else s = 0;
    }
    this.scan = s;
    return -1;
  }

  /** The response is complete; `extra`: bytes follow it that no request asked for, so the connection is not reused. */
  private finish(extra: boolean): FeedResult {
    const body =
      this.bodyText ?? (this.body.length === 0 ? '' : this.body.length === 1 ? this.body[0].toString('utf8') : Buffer.concat(this.body, this.bodyBytes).toString('utf8'));
    return { kind: 'done', status: this.status, body, keepAlive: this.keepAlive && !extra, keepAliveMs: this.keepAliveMs, extra };
  }

  private keep(buf: Buffer, from: number, to: number): void {
    this.pending.push(Buffer.from(buf.subarray(from, to)));
    this.pendingBytes += to - from;
  }

  /** The kept bytes and `buf[from, to)` as latin1 text; the kept bytes are released. */
  private takeText(buf: Buffer, from: number, to: number): string {
    if (this.pendingBytes === 0) return buf.toString('latin1', from, to);
    const all = Buffer.concat([...this.pending, buf.subarray(from, to)]);
    this.pending = [];
    this.pendingBytes = 0;
    return all.toString('latin1');
  }
}

function error(message: string): FeedResult {
  return { kind: 'error', message };
}

const LF_CR_LF = Buffer.from('\n\r\n', 'latin1');
const LF_LF = Buffer.from('\n\n', 'latin1');

/** The status line, read by hand (this runs once per request): the status, the version, and where the fields start; or what is wrong with it. */
function statusLine(text: string): { readonly status: number; readonly http10: boolean; readonly next: number } | string {
  let nl = text.indexOf('\n');
  if (nl < 0) nl = text.length;
  const lineEnd = nl > 0 && text.charCodeAt(nl - 1) === CR ? nl - 1 : nl;
  // HTTP/1.x SP 3DIGIT (SP reason)?
  const minor = digit(text, 7);
  const good =
    text.startsWith('HTTP/1.') && (minor === 0 || minor === 1) && text.charCodeAt(8) === 0x20 &&
    digit(text, 9) >= 1 && digit(text, 10) >= 0 && digit(text, 11) >= 0 && (lineEnd === 12 || text.charCodeAt(12) === 0x20);
  if (!good || lineEnd < 12) return `not an HTTP/1.x status line: ${JSON.stringify(text.slice(0, Math.min(lineEnd, 40)))}`;
  return { status: digit(text, 9) * 100 + digit(text, 10) * 10 + digit(text, 11), http10: minor === 0, next: nl + 1 };
}

/** The four header fields the engine reads; the rest are passed over. */
interface HeadFields {
  length: number | undefined;
  chunked: boolean | undefined;
  /** Every Connection field's value, each after a comma. */
  connection: string;
  keepAliveHint: string;
}

/** The fields of a head from `from` on, line by line without splitting (a head is read once per request); or what is wrong with them. */
function headFields(text: string, from: number): HeadFields | string {
  const n = text.length;
  const f: HeadFields = { length: undefined, chunked: undefined, connection: '', keepAliveHint: '' };
  for (let pos = from; pos < n; ) {
    let e = text.indexOf('\n', pos);
    if (e < 0) e = n;
    const le = e > pos && text.charCodeAt(e - 1) === CR ? e - 1 : e;
    const next = e + 1;
    if (le === pos) {
      pos = next;
      continue;
    }
    const colon = text.indexOf(':', pos);
    if (colon <= pos || colon >= le) {
      // An obs-fold continues the previous field (RFC 9112 section 5.2); no field the engine reads is folded in practice.
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x09) {
        pos = next;
        continue;
      }
      return `malformed header line ${JSON.stringify(text.slice(pos, Math.min(le, pos + 40)))}`;
    }
    const problem = readField(text, pos, colon, le, f);
    if (problem !== undefined) return problem;
    pos = next;
  }
  return f;
}

/** Notes the field `text[pos, le)` in `f` if it is one the engine reads; a problem with its value, if any. */
function readField(text: string, pos: number, colon: number, le: number, f: HeadFields): string | undefined {
  // Only four names matter; their lengths pick them out before any comparison.
  switch (colon - pos) {
    case 14:
      if (named(text, pos, 'content-length')) {
        const v = text.slice(colon + 1, le).trim();
        // "n, n" (a repeated field folded into one) is one length; anything else is not.
        for (const part of v.includes(',') ? v.split(',') : [v]) {
          const t = part.trim();
          if (!/^\d{1,15}$/.test(t)) return `bad content-length ${JSON.stringify(v.slice(0, 40))}`;
          const len = Number(t);
          if (f.length !== undefined && f.length !== len) return 'conflicting content-length values';
          f.length = len;
        }
      }
      return undefined;
    case 17:
      if (named(text, pos, 'transfer-encoding')) {
        const v = text.slice(colon + 1, le);
        f.chunked = v.slice(v.lastIndexOf(',') + 1).trim().toLowerCase() === 'chunked';
      }
      return undefined;
    case 10:
      if (named(text, pos, 'connection')) f.connection += ',' + text.slice(colon + 1, le).toLowerCase();
      else if (named(text, pos, 'keep-alive')) f.keepAliveHint = text.slice(colon + 1, le);
      return undefined;
    default:
      return undefined;
  }
}

/** The decimal digit at `k`, or -1. */
function digit(text: string, k: number): number {
  const d = text.charCodeAt(k) - 0x30;
  return d >= 0 && d <= 9 ? d : -1;
}

/** Whether the field name at `pos` is `lower` (letters and '-'), ignoring ASCII case. */
function named(text: string, pos: number, lower: string): boolean {
  for (let k = 0; k < lower.length; k++) if ((text.charCodeAt(pos + k) | 0x20) !== lower.charCodeAt(k)) return false;
  return true;
}

/** The size of a chunk from its line (hex, then optional extensions), or undefined. */
function chunkSize(line: string): number | undefined {
  const m = /^([0-9a-fA-F]{1,13})[ \t]*(?:;[^\r\n]*)?\r?\n$/.exec(line);
  return m ? parseInt(m[1], 16) : undefined;
}
