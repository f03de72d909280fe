/**
 * The load engine's response parser (RFC 9112 framing): each case gives the same answer whole, a
 * byte at a time and split anywhere, since TCP may cut a response at any byte.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RESPONSE_HEAD_CAP_BYTES, ResponseParser, type FeedResult } from '../../src/load/http1/http1-response.ts';

type Outcome = { kind: 'done'; status: number; body: string; keepAlive: boolean; keepAliveMs?: number } | { kind: 'over-cap' } | { kind: 'error'; message: RegExp } | { kind: 'more' };

/** Feeds `bytes` in the pieces `cuts` makes, then (if asked and still unfinished) the connection's end. */
function parse(bytes: Buffer, cuts: readonly number[], cap: number, closeAtEnd: boolean): FeedResult {
  const p = new ResponseParser(cap);
  const points = [...new Set(cuts.filter((c) => c > 0 && c < bytes.length))].sort((a, b) => a - b);
  let from = 0;
  // Each piece arrives in a reused buffer, as the sender's reads do: the parser must copy what it keeps.
  const scratch = Buffer.alloc(bytes.length + 16);
  for (const to of [...points, bytes.length]) {
    const off = 7;
    bytes.copy(scratch, off, from, to);
    const r = p.feed(scratch, off, off + (to - from));
    scratch.fill(0x21);
    from = to;
    if (r.kind !== 'more') return r;
  }
  return closeAtEnd ? p.close() : { kind: 'more' };
}

function matches(r: FeedResult, want: Outcome): void {
  if (want.kind === 'error') {
    expect(r.kind).toBe('error');
    expect((r as { message: string }).message).toMatch(want.message);
  } else if (want.kind === 'done') {
    expect(r).toMatchObject({ ...want, ...(want.keepAliveMs === undefined ? {} : { keepAliveMs: want.keepAliveMs }) });
  } else expect(r.kind).toBe(want.kind);
}

const CASES: ReadonlyArray<{ name: string; raw: string; want: Outcome; cap?: number; close?: boolean }> = [
  { name: 'Content-Length', raw: 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"ok":true}', want: { kind: 'done', status: 200, body: '{"ok":true}', keepAlive: true } },
  {
    name: 'chunked, with an extension and a trailer',
    raw: 'HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n',
    want: { kind: 'done', status: 201, body: 'hello world', keepAlive: true },
  },
  { name: 'chunked last among codings', raw: 'HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n', want: { kind: 'done', status: 200, body: 'ok', keepAlive: true } },
  { name: 'a coding other than chunked last: until close', raw: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nabc', close: true, want: { kind: 'done', status: 200, body: 'abc', keepAlive: false } },
  { name: 'Transfer-Encoding over Content-Length, and the connection not kept', raw: 'HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n', want: { kind: 'done', status: 200, body: 'x', keepAlive: false } },
  { name: 'Connection: close', raw: 'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok', want: { kind: 'done', status: 200, body: 'ok', keepAlive: false } },
  { name: 'HTTP/1.0 closes by default', raw: 'HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok', want: { kind: 'done', status: 200, body: 'ok', keepAlive: false } },
  { name: 'HTTP/1.0 with keep-alive', raw: 'HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nKeep-Alive: timeout=5, max=100\r\nContent-Length: 2\r\n\r\nok', want: { kind: 'done', status: 200, body: 'ok', keepAlive: true, keepAliveMs: 5000 } },
  { name: 'no framing: the body runs until close', raw: 'HTTP/1.1 500 Internal Server Error\r\n\r\npartial body', close: true, want: { kind: 'done', status: 500, body: 'partial body', keepAlive: false } },
  { name: 'an interim 100 before the answer', raw: 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx', want: { kind: 'done', status: 200, body: 'x', keepAlive: true } },
  { name: '204 has no body whatever it says', raw: 'HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n', want: { kind: 'done', status: 204, body: '', keepAlive: true } },
  { name: '304 has no body', raw: 'HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n', want: { kind: 'done', status: 304, body: '', keepAlive: true } },
  { name: 'an empty body by Content-Length', raw: 'HTTP/1.1 409 Conflict\r\nContent-Length: 0\r\n\r\n', want: { kind: 'done', status: 409, body: '', keepAlive: true } },
  { name: 'a repeated, equal Content-Length', raw: 'HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\ncontent-length: 2\r\n\r\nok', want: { kind: 'done', status: 200, body: 'ok', keepAlive: true } },
  { name: 'bare LF line ends', raw: 'HTTP/1.1 200 OK\nContent-Length: 2\n\nok', want: { kind: 'done', status: 200, body: 'ok', keepAlive: true } },
  { name: 'multi-byte UTF-8 cut anywhere', raw: 'HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n"é€😀"'.replace('9', String(Buffer.byteLength('"é€😀"'))), want: { kind: 'done', status: 200, body: '"é€😀"', keepAlive: true } },
  { name: 'a Content-Length that is not a number', raw: 'HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n', want: { kind: 'error', message: /bad content-length/ } },
  { name: 'conflicting Content-Length values', raw: 'HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd', want: { kind: 'error', message: /conflicting content-length/ } },
  { name: 'not HTTP at all', raw: 'SSH-2.0-OpenSSH_9.2\r\n\r\n', want: { kind: 'error', message: /not an HTTP\/1.x status line/ } },
  { name: 'a status line without a reason phrase', raw: 'HTTP/1.1 202\r\nContent-Length: 0\r\n\r\n', want: { kind: 'done', status: 202, body: '', keepAlive: true } },
  { name: 'a status code that is not three digits', raw: 'HTTP/1.1 20 OK\r\n\r\n', want: { kind: 'error', message: /not an HTTP\/1.x status line/ } },
  { name: 'HTTP/2 preface', raw: 'HTTP/2 200\r\n\r\n', want: { kind: 'error', message: /not an HTTP\/1.x status line/ } },
  { name: 'a header line without a colon', raw: 'HTTP/1.1 200 OK\r\nbroken\r\n\r\n', want: { kind: 'error', message: /malformed header line/ } },
  { name: 'a bad chunk size', raw: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', want: { kind: 'error', message: /bad chunk size/ } },
  { name: 'chunk data not followed by CRLF', raw: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nxy\r\n0\r\n\r\n', want: { kind: 'error', message: /not followed by CRLF/ } },
  { name: '101 was never asked for', raw: 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n', want: { kind: 'error', message: /101/ } },
  { name: 'closed mid-body', raw: 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc', close: true, want: { kind: 'error', message: /closed before the response ended/ } },
  { name: 'closed before anything', raw: '', close: true, want: { kind: 'error', message: /closed before any response/ } },
  { name: 'a body over the cap by Content-Length', raw: 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789', cap: 5, want: { kind: 'over-cap' } },
  { name: 'a chunked body over the cap', raw: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n', cap: 5, want: { kind: 'over-cap' } },
  { name: 'a body until close over the cap', raw: 'HTTP/1.1 200 OK\r\n\r\n0123456789', cap: 5, close: true, want: { kind: 'over-cap' } },
  { name: 'a body exactly at the cap', raw: 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n01234', cap: 5, want: { kind: 'done', status: 200, body: '01234', keepAlive: true } },
];

describe('ResponseParser', () => {
  for (const c of CASES) {
    it(`${c.name}: whole, a byte at a time, and cut anywhere`, () => {
      const bytes = Buffer.from(c.raw, 'utf8');
      const cap = c.cap ?? 1024 * 1024;
      matches(parse(bytes, [], cap, c.close ?? false), c.want);
      matches(parse(bytes, Array.from({ length: bytes.length }, (_, i) => i), cap, c.close ?? false), c.want);
      fc.assert(
        fc.property(fc.array(fc.nat({ max: Math.max(1, bytes.length) }), { maxLength: 8 }), (cuts) => matches(parse(bytes, cuts, cap, c.close ?? false), c.want)),
        { numRuns: 60, seed: 13 },
      );
    });
  }

  it('waits for more until the head is complete, and refuses a head over its cap', () => {
    const p = new ResponseParser(1024);
    expect(p.feed(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n'), 0, 36).kind).toBe('more');
    const big = Buffer.from(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(RESPONSE_HEAD_CAP_BYTES)}\r\n\r\n`);
    const r = new ResponseParser(1024).feed(big, 0, big.length);
    expect(r).toMatchObject({ kind: 'error', message: `response head over ${RESPONSE_HEAD_CAP_BYTES} bytes` });
    // Dripped in pieces, the same.
    const q = new ResponseParser(1024);
    let last: FeedResult = { kind: 'more' };
    for (let i = 0; i < big.length && last.kind === 'more'; i += 1000) last = q.feed(big, i, Math.min(big.length, i + 1000));
    expect(last.kind).toBe('error');
  });

  it('says when bytes follow the answer in the same read (the sender does not reuse such a connection; later stray bytes it sees itself)', () => {
    const b = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokGARBAGE');
    expect(new ResponseParser(1024).feed(b, 0, b.length)).toMatchObject({ kind: 'done', body: 'ok', keepAlive: false, extra: true });
  });

  it('parses the next response on the same connection after reset', () => {
    const p = new ResponseParser(1024);
    const one = Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n');
    const two = Buffer.from('HTTP/1.1 404 Not Found\r\nContent-Length: 1\r\n\r\nb');
    expect(p.feed(one, 0, one.length)).toMatchObject({ kind: 'done', status: 200, body: 'a' });
    p.reset();
    expect(p.feed(two, 0, two.length)).toMatchObject({ kind: 'done', status: 404, body: 'b' });
  });
});
