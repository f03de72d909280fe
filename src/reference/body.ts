/**
 * From an incoming request to a parsed JSON value, rejecting each kind of malformed body with its
 * own clear 4xx: wrong content type (415), oversized (413, checked from Content-Length and while
 * streaming), invalid UTF-8, nesting too deep, duplicate member names, invalid JSON (400).
 */
import type { IncomingMessage } from 'node:http';
import { HttpError, badRequest } from './errors.ts';
import { INT_DIGITS_CAP } from './fault-catalogue.ts';
import type { FaultSet } from './faults.ts';
import type { ReadingSet } from './readings.ts';
import { scanJson } from './json-scan.ts';
import { firstValue, holdsLoneSurrogate, longestNumber, withEscapedControls, withoutComments, withPlainNumbers } from './lenient-json.ts';
import { errorMessage, BODY_SIZE_CAP_BYTES } from '../spec/index.ts';

/**
 * Request size limits are not shown (section 8); assumption `body-size-limit` lets a server reject
 * bodies over BODY_SIZE_CAP_BYTES. The largest bodies the stated limits allow (50 ops of maximal
 * envelopes, about 35 MB) stay well below.
 */
export const MAX_BODY_BYTES = BODY_SIZE_CAP_BYTES;
/** The deepest valid body is 5 levels deep; 4.4 `response` is free-form, so leave generous room. */
export const MAX_JSON_DEPTH = 64;

const JSON_TYPE = /^application\/json\s*(?:;|$)/i;
/** `content-type-exact`: the one spelling a hand-written check compares with. */
const EXACT_JSON_TYPE = 'application/json';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function tooLargeError(): HttpError {
  return new HttpError(413, 'body_too_large', `request body exceeds ${MAX_BODY_BYTES} bytes`, { connection: 'close' });
}

/** `content-type-json-only`: `rejected` answers 415 to any other type; `sniffed` parses the body as JSON whatever it is labelled. */
export function checkContentType(req: IncomingMessage, faults: FaultSet, readings: ReadingSet): void {
  if (readings.is('content-type-json-only', 'sniffed')) return;
  const ct = req.headers['content-type'];
  // `content-type-exact`: the header compared as a string, so parameters and upper case are refused.
  if (!ct || !JSON_TYPE.test(ct) || (faults.has('content-type-exact') && ct !== EXACT_JSON_TYPE)) {
    throw new HttpError(415, 'unsupported_media_type', `Content-Type must be application/json (got ${ct ? JSON.stringify(ct.slice(0, 80)) : 'none'})`);
  }
}

/** `body-cap-1mib`: nginx's default client_max_body_size, left in front of the service. */
export const NGINX_DEFAULT_BODY_BYTES = 1024 * 1024;
/** `body-cap-30mb`: Kestrel's default MaxRequestBodySize, under the largest commit the limits allow (~35 MB). */
export const KESTREL_DEFAULT_BODY_BYTES = 30_000_000;

/** Reads the whole body, refusing more than MAX_BODY_BYTES before buffering it. */
export function readBody(req: IncomingMessage, faults: FaultSet): Promise<Uint8Array> {
  // body-cap-500: the cap is enforced, but by an error the generic handler turns into a 500.
  const tooLarge = faults.has('body-cap-500') ? () => new Error('body too large') : tooLargeError;
  const cap = faults.has('body-cap-1mib') ? NGINX_DEFAULT_BODY_BYTES : faults.has('body-cap-30mb') ? KESTREL_DEFAULT_BODY_BYTES : MAX_BODY_BYTES;
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > cap) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > cap) {
        done = true;
        chunks.length = 0;
        req.off('data', onData);
        req.resume(); // discard the rest; the response closes the connection
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => {
      if (done) return;
      done = true;
      const buf = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
      resolve(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength));
    });
    req.on('error', (e) => {
      if (done) return;
      done = true;
      reject(badRequest('body_read_failed', `could not read the request body: ${e.message}`));
    });
  });
}

const duplicateKey = (key: string): HttpError => badRequest('duplicate_key', `JSON object has the member name ${JSON.stringify(key.slice(0, 80))} twice`);

/** Decodes and parses a body; throws HttpError(400) with a message naming the problem. */
export function parseJsonBody(raw: Uint8Array, faults: FaultSet, readings: ReadingSet): unknown {
  // `duplicate-keys`: `rejected` answers 400 to a repeated member name; `last-wins` is plain JSON.parse.
  const lastWins = readings.is('duplicate-keys', 'last-wins');
  let text: string;
  if (faults.has('invalid-utf8-accepted')) {
    text = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8');
  } else {
    try {
      text = strictUtf8.decode(raw);
    } catch {
      throw badRequest('invalid_utf8', 'request body is not valid UTF-8');
    }
  }
  text = lenientText(text, faults);
  if (!lastWins || !faults.has('deep-nesting-crash')) {
    const depthBound = faults.has('deep-nesting-crash') ? undefined : MAX_JSON_DEPTH;
    // `duplicate-keys-escaped`: names compared as written, so "a" and "\u0061" are two names; `member-names-quadratic`: each name compared with every earlier one.
    const problem = scanJson(text, depthBound, { rawNames: faults.has('duplicate-keys-escaped'), namesInList: faults.has('member-names-quadratic') });
    if (problem?.kind === 'depth') throw badRequest('too_deep', `JSON nesting deeper than ${problem.limit} levels`);
    if (problem?.kind === 'duplicate' && !lastWins && !faults.has('duplicate-keys-first-only')) throw duplicateKey(problem.key);
    if (problem?.kind === 'duplicate' && faults.has('duplicate-keys-first-only') && text.trimStart().startsWith(`{${JSON.stringify(problem.key)}`)) throw duplicateKey(problem.key);
  }
  let value: unknown;
  if (faults.has('malformed-json-500') || faults.has('dies-on-input')) {
    value = JSON.parse(text); // the SyntaxError escapes to the generic handler (under dies-on-input it is never caught)
  } else {
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw badRequest('invalid_json', `request body is not valid JSON: ${errorMessage(e).slice(0, 120)}`);
    }
  }
  if (faults.has('deep-nesting-crash')) depthOf(value);
  // `lone-surrogate-500`: the body's strings go through a strict UTF-8 encoder on their way to storage, which throws on a lone surrogate.
  if (faults.has('lone-surrogate-500') && holdsLoneSurrogate(value)) throw new Error('cannot encode a lone surrogate as UTF-8');
  return value;
}

/**
 * The text a lenient parser effectively reads, one fault at a time (lenient-json.ts); the text
 * itself under the correct reference. A number past the digit cap throws a plain error, as
 * Python's int() does, which the generic handler answers 500.
 */
function lenientText(text: string, faults: FaultSet): string {
  let t = text;
  // Stryker disable next-line all: the parser faults only
  if (faults.has('json-huge-number-500') && longestNumber(t) > INT_DIGITS_CAP) throw new Error(`Exceeds the limit (${INT_DIGITS_CAP} digits) for integer string conversion`);
  if (faults.has('json-comments')) t = withoutComments(t);
  if (faults.has('json-lenient-numbers')) t = withPlainNumbers(t);
  if (faults.has('json-raw-control-chars')) t = withEscapedControls(t);
  if (faults.has('json-trailing-garbage')) t = firstValue(t.trimStart());
  return t;
}

/** The naive depth measure of the `deep-nesting-crash` fault: recursion without a bound. */
// Stryker disable all: runs only under the deep-nesting-crash fault (docs/mutation.md)
function depthOf(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  let max = 0;
  for (const child of Object.values(v)) max = Math.max(max, depthOf(child));
  if (max + 1 > MAX_JSON_DEPTH) throw badRequest('too_deep', `JSON nesting deeper than ${MAX_JSON_DEPTH} levels`);
  return max + 1;
}
// Stryker restore all
