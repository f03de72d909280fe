/**
 * The introduction's "all bodies are JSON (Content-Type: application/json)", read as a contract
 * about bad input: malformed JSON, another content type, absurd nesting, invalid UTF-8 and
 * duplicate keys are client errors (4xx, never 5xx), and the target keeps serving afterwards.
 */
import fc from 'fast-check';
import { assumptionMismatch, describeResponse, expectAccepted, expectRejected, refusedAfterResend, serverError, unexpected, type Blame } from '../src/check/judge/judge.ts';
import { SERVES, specJudgement } from '../src/check/judge/judgements.ts';
import { PASS, defineProperty, type CaseContext, type Outcome, type Property } from '../src/check/property.ts';
import { isObject, parseJsonValue, type Json, type JsonObject } from '../src/gen/index.ts';
import { assumptionOf, BODY_SIZE_CAP_BYTES, ENDPOINT_BY_ID, LIMITS, type AssumptionName, type EndpointId, type Node } from '../src/spec/index.ts';
import type { Exchange } from '../src/target/client.ts';
import { plainRequest, prepare, sendPlain } from './support/requests.ts';
import { commit, fates, op, pouchFor, type Op } from './support/commits.ts';

export type Bad =
  | 'truncated'
  | 'trailing-comma'
  | 'single-quotes'
  | 'nan'
  | 'empty'
  | 'not-an-object'
  | 'text-plain'
  | 'deep-nesting'
  | 'invalid-utf8'
  | 'duplicate-keys'
  | 'duplicate-keys-late'
  | 'comment'
  | 'trailing-garbage'
  | 'raw-control-char'
  | 'leading-zero'
  | 'huge-number'
  | 'duplicate-keys-escaped'
  | 'lone-surrogate'
  | 'lone-surrogate-in-text'
  | 'huge-exponent'
  | 'huge-integer';
export const BAD: readonly Bad[] = [
  'truncated',
  'trailing-comma',
  'single-quotes',
  'nan',
  'empty',
  'not-an-object',
  'text-plain',
  'deep-nesting',
  'invalid-utf8',
  'duplicate-keys',
  'duplicate-keys-late',
  'comment',
  'trailing-garbage',
  'raw-control-char',
  'leading-zero',
  'huge-number',
  'duplicate-keys-escaped',
  'lone-surrogate',
  'lone-surrogate-in-text',
  'huge-exponent',
  'huge-integer',
];

/** The intro: "All bodies are JSON": a body that is no JSON is not a request of any endpoint. */
// A bad body some reading serves (another content type, a duplicate key) blames that reading; the rest
// are refused under every one: only what counts as a refusal, and the size a body may be refused at, are read.
const JSON_ONLY = specJudgement('robustness.json-only', 'A body that is not JSON (or not the JSON the endpoint takes) is refused with a 4xx.', 'jsonBodies', { reads: ['error-response', 'body-size-limit'] });

/** Where the 4xx rests on a reading rather than on RFC 8259 or the schema. */
const READING: Partial<Record<Bad, AssumptionName>> = {
  'text-plain': 'content-type-json-only',
  'duplicate-keys': 'duplicate-keys',
  'duplicate-keys-late': 'duplicate-keys',
  'duplicate-keys-escaped': 'duplicate-keys',
};

/**
 * JSON that RFC 8259 allows but leaves to the parser (an escaped lone surrogate, §8.2): a server may
 * take it or refuse it, so only a 5xx is a finding. In an unknown member a parser meets it; in the
 * endpoint's own free text (a model, a welcome, a statement outside the roster) so does whatever
 * stores or keys that text (a strict UTF-8 encoder, encodeURIComponent, a database driver).
 */
const TOLERATED: ReadonlySet<Bad> = new Set(['lone-surrogate', 'lone-surrogate-in-text']);

/** Stand-in for the escape `\ud800` until the body is text: no generated body holds a NUL character. */
const SURROGATE_SLOT = '\u0000lone-surrogate\u0000';

type ScalarNode = Exclude<Node, { kind: 'array' | 'object' }>;

/** `value` with `leaf` applied to each of its scalars, as its model node types them (arrays and objects walked, a free-form object left whole). */
function mapScalars(value: Json, node: Node, leaf: (value: Json, node: ScalarNode) => Json): Json {
  switch (node.kind) {
    case 'array':
      return Array.isArray(value) ? value.map((v) => mapScalars(v, node.items, leaf)) : value;
    case 'object': {
      if (!isObject(value) || node.freeForm) return value;
      const out: JsonObject = { ...value };
      for (const [k, f] of Object.entries(node.fields)) {
        const v = out[k];
        if (k in out && v !== undefined) out[k] = mapScalars(v, f.node, leaf);
      }
      return out;
    }
    case 'string':
    case 'uuid':
    case 'integer':
    case 'boolean':
    case 'enum':
      return leaf(value, node);
    default:
      return node satisfies never;
  }
}

/** `value` with a stand-in appended to every string the model leaves free (no alphabet, no pattern). */
function markFreeText(value: Json, node: Node): Json {
  return mapScalars(value, node, (v, n) => (n.kind === 'string' && typeof v === 'string' && !n.charset && !n.pattern ? v + SURROGATE_SLOT : v));
}

/** A request body's JSON text as its object (the bodies here are all objects; anything else is an empty one). */
function parsedObject(json: string): JsonObject {
  const v = parseJsonValue(json);
  return isObject(v) ? v : {};
}

/** `json` with an escaped lone surrogate at the end of every free-text string of `node`; the unknown member `x` where it has none. */
export function withFreeTextSurrogates(json: string, node: Node): string {
  const marked = JSON.stringify(markFreeText(parseJsonValue(json), node));
  const slot = JSON.stringify(SURROGATE_SLOT).slice(1, -1);
  return marked.includes(slot) ? marked.replaceAll(slot, '\\ud800') : withMember(json, '"x":"\\ud800"');
}

/** More digits than any integer parser caps (Python's 4300, CVE-2020-10735), and past every stated bound. */
export const HUGE_NUMBER_DIGITS = 5000;

/** Deep enough to overflow any recursive walk over the parsed value (V8 stops near 10k frames). */
export const NESTING_DEPTH = 10_000;

/** Endpoints without Service-Signature, so the body is the only thing wrong. */
const UNSIGNED: readonly EndpointId[] = ['reportUsage', 'revokeBrowser', 'registerPasskey', 'approveDevice', 'changeUnlock'];

interface BadCase {
  readonly endpoint: EndpointId;
  readonly bad: Bad;
}

/** Each case tries every kind of bad body on one endpoint (they are small and cheap). */
const arbBad: fc.Arbitrary<BadCase[]> = fc
  .tuple(fc.constantFrom(...UNSIGNED), fc.shuffledSubarray([...BAD], { minLength: BAD.length }))
  .map(([endpoint, bads]) => bads.filter((bad) => appliesTo(bad, endpoint)).map((bad) => ({ endpoint, bad })));

/** `json` (an object's text) with one more member first. */
function withMember(json: string, member: string): string {
  return json === '{}' ? `{${member}}` : `{${member},${json.slice(1)}`;
}

/**
 * `value` as JSON with the last member of its last-written object repeated with the same value, after
 * every string, escape and nested value before it: a duplicate check that stops early, skips nested
 * objects or compares names only with the first member misses it. Under `duplicate-keys=last-wins`
 * the body means exactly `value`.
 */
export function withLateDuplicate(value: object): string {
  let target: object = value;
  for (;;) {
    const last: unknown = Object.values(target).at(-1);
    const inner: unknown = Array.isArray(last) ? last.at(-1) : last;
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner) || Object.keys(inner).length === 0) break;
    target = inner;
  }
  const member = Object.entries(target).at(-1);
  const own = JSON.stringify(target);
  if (!member) return own;
  const doubled = `${own.slice(0, -1)},${JSON.stringify(member[0])}:${JSON.stringify(member[1])}}`;
  if (target === value) return doubled;
  // Stand-in: no generated body holds a NUL character.
  const PLACEHOLDER = '\u0000late-duplicate\u0000';
  const swapped = JSON.stringify(value, (_k, v: unknown) => (v === target ? PLACEHOLDER : v));
  return swapped.replace(JSON.stringify(PLACEHOLDER), doubled);
}

/** Stand-in for the number `1e400` until the body is text. */
const EXPONENT_SLOT = '\u0000huge-exponent\u0000';

/** `value` with the stand-in in place of every integer the model bounds (a counter, a roster key_gen). */
function markBoundedIntegers(value: Json, node: Node): Json {
  return mapScalars(value, node, (v, n) => (n.kind === 'integer' && typeof v === 'number' && n.range ? EXPONENT_SLOT : v));
}

/**
 * `json` with `1e400` in place of every bounded integer of `node`: an integer by JSON's grammar, far
 * over every stated maximum, and Infinity to a parser into doubles, which a bound check written for
 * finite numbers (or a saturating parser) lets through. Undefined where the body holds no bounded integer.
 */
export function withHugeExponents(json: string, node: Node, lexeme = '1e400'): string | undefined {
  const marked = JSON.stringify(markBoundedIntegers(parseJsonValue(json), node));
  const slot = JSON.stringify(EXPONENT_SLOT);
  return marked.includes(slot) ? marked.replaceAll(slot, lexeme) : undefined;
}

/**
 * What stands where a bounded integer belongs: 1e400, and thousands of digits, which a parser that
 * keeps a number's digits meets when it reads the field (Python's int(), a BigInteger), past its cap.
 */
const BOUNDED_INTEGER_LEXEME = { 'huge-exponent': '1e400', 'huge-integer': '9'.repeat(HUGE_NUMBER_DIGITS) } as const;

/** Whether a kind of bad body can be built from the plain request of `endpoint` (a bounded integer for `huge-exponent` and `huge-integer`). */
function appliesTo(bad: Bad, endpoint: EndpointId): boolean {
  if (bad !== 'huge-exponent' && bad !== 'huge-integer') return true;
  const s = plainRequest(endpoint);
  return withHugeExponents(JSON.stringify(s.body), ENDPOINT_BY_ID[endpoint].body) !== undefined;
}

/** The bytes of a bad body built from a valid one (of the endpoint whose body is `node`, where the kind reads the model), and any header it needs. */
export function badBody(json: string, bad: Bad, field: string, node?: Node): { raw: Uint8Array | string; headers?: Record<string, string> } {
  switch (bad) {
    case 'truncated':
      return { raw: json.slice(0, Math.max(1, json.length - 1)) };
    case 'trailing-comma':
      return { raw: json.replace(/\}$/, ',}') };
    case 'single-quotes':
      return { raw: withMember(json, '"quoted":1').replaceAll('"', "'") };
    case 'nan':
      return { raw: withMember(json, '"nan":NaN') };
    case 'empty':
      return { raw: '' };
    case 'not-an-object':
      return { raw: JSON.stringify(json) };
    case 'text-plain':
      return { raw: json, headers: { 'content-type': 'text/plain' } };
    case 'deep-nesting':
      // Nested inside a listed field, so the body is wrong by the schema too (no field is an array of arrays).
      return { raw: `{${JSON.stringify(field)}:${'['.repeat(NESTING_DEPTH)}${']'.repeat(NESTING_DEPTH)}}` };
    case 'invalid-utf8': {
      // A string member holding bytes that are no UTF-8 at all (a lone continuation byte and 0xff).
      const [head, tail] = withMember(json, '"x":"@BAD@"').split('@BAD@');
      return { raw: new Uint8Array(Buffer.concat([Buffer.from(head, 'utf8'), Buffer.from([0x80, 0xff, 0xfe]), Buffer.from(tail, 'utf8')])) };
    }
    case 'duplicate-keys': {
      const first = Object.keys(parsedObject(json))[0];
      return { raw: first ? withMember(json, `${JSON.stringify(first)}:null`) : '{"a":1,"a":2}' };
    }
    case 'duplicate-keys-late':
      return { raw: json === '{}' ? '{"a":"\\"{","b":[{}],"b":[{}]}' : withLateDuplicate(parsedObject(json)) };
    case 'comment':
      // JSON5's and Jackson's ALLOW_COMMENTS: a comment where white space may go.
      return { raw: `{/* pouchproof */${json.slice(1)}` };
    case 'trailing-garbage':
      // Go's json.Decoder.Decode and Jackson read one value and stop: what follows is never looked at.
      return { raw: `${json} "trailing"` };
    case 'raw-control-char':
      return { raw: withMember(json, '"x":"a\tb"') };
    case 'leading-zero':
      return { raw: withMember(json, '"n":01') };
    case 'huge-number':
      // In a listed field, so it is wrong by the schema too (no field is a number of that size).
      return { raw: `{${JSON.stringify(field)}:${'9'.repeat(HUGE_NUMBER_DIGITS)}}` };
    case 'duplicate-keys-escaped': {
      // The first member again, its name written with a \u escape (the same name) and its own value: under last-wins the body means the same.
      const [first, value] = Object.entries(parsedObject(json))[0] ?? ['a', 1];
      const escaped = `"\\u${first.charCodeAt(0).toString(16).padStart(4, '0')}${JSON.stringify(first).slice(2)}`;
      return { raw: json === '{}' ? '{"a":1,"\\u0061":1}' : `${json.slice(0, -1)},${escaped}:${JSON.stringify(value)}}` };
    }
    case 'lone-surrogate':
      return { raw: withMember(json, '"x":"\\ud800"') };
    case 'lone-surrogate-in-text':
      return { raw: node ? withFreeTextSurrogates(json, node) : withMember(json, '"x":"\\ud800"') };
    case 'huge-exponent':
    case 'huge-integer':
      // Only sent where it applies (appliesTo); elsewhere (or with no model of the body) the body stays as it was.
      return { raw: (node && withHugeExponents(json, node, BOUNDED_INTEGER_LEXEME[bad])) ?? json };
  }
}

function sendBad(ctx: CaseContext, c: BadCase): Promise<Exchange> {
  const s = prepare(ctx, c.endpoint, plainRequest(c.endpoint));
  const body = ENDPOINT_BY_ID[c.endpoint].body;
  const { raw, headers } = badBody(JSON.stringify(s.body), c.bad, Object.keys(body.fields)[0], body);
  return ctx.call({ endpoint: c.endpoint, params: s.params, rawBody: raw, ...(headers ? { headers } : {}) });
}

// Intro and RFC 8259: a body that is not the JSON the endpoint takes is a client error.
const malformedRejected = defineProperty({
  id: 'robustness.malformed-rejected',
  section: '2',
  invariant:
    'Malformed JSON (what lenient parsers accept: comments, trailing garbage, raw control characters, leading zeros), another content type, absurd nesting, a number of thousands of digits (in a listed field, and in place of a bounded integer), 1e400 in a bounded integer, invalid UTF-8 and duplicate keys are refused with a 4xx, never a 5xx; an escaped lone surrogate, in an unknown member or in the endpoint\'s free text, is never a 5xx.',
  assumptions: ['content-type-json-only', 'duplicate-keys', 'error-response'],
  judgements: [JSON_ONLY],
  needs: ['browser', 'device'],
  arbitrary: () => arbBad,
  async check(ctx, cases) {
    let note: Outcome = PASS;
    for (const c of cases) {
      if (ctx.signal.aborted) break;
      const ex = await sendBad(ctx, c);
      if (TOLERATED.has(c.bad)) {
        const u = unexpected(ex, `${c.endpoint} with a body of grammatical but unusual JSON (${c.bad})`);
        if (u && !u.ok && u.kind !== 'transport') return u;
        continue;
      }
      const reading = READING[c.bad];
      // Under the reading that serves it (last-wins, sniffed), such a body is a request like any other.
      if (reading && ctx.assumptions[reading] !== assumptionOf(reading).default) continue;
      const b: Blame = reading ? { assumption: reading } : { judgement: JSON_ONLY };
      const o = expectRejected(ex, { what: `${c.endpoint} with a bad body (${c.bad})`, assumptions: ctx.assumptions, blame: b });
      if (!o.ok && o.kind !== 'assumption') return o;
      if (!o.ok && note.ok) note = o;
    }
    return note;
  },
});

/** A plain valid request right after: the target must still answer it (a target that stops serving has failed: a server error). */
async function stillServing(ctx: CaseContext, after: string): Promise<Outcome> {
  const ex = await sendPlain(ctx, 'reportUsage');
  if (ex.verdict === 'accepted') return PASS;
  const u = unexpected(ex);
  // An answer pouchproof itself cut off (its time bound, or the nemesis dropping every copy) says nothing of the target.
  if (u && !u.ok && u.kind === 'transport' && ex.failure !== 'aborted') return serverError(`the target stopped serving after ${after}: a plain usage report then failed (${ex.reason})`);
  return u ?? expectAccepted(ex, { what: `a plain usage report right after ${after}`, blame: { judgement: SERVES.reportUsage } });
}

// A bad request harms only itself: the next valid request is served.
const stillServingProp = defineProperty({
  id: 'robustness.still-serving',
  section: '2',
  invariant: 'After any bad body, the target still serves a valid request.',
  assumptions: ['caller-kinds'],
  needs: ['browser', 'device'],
  arbitrary: () => arbBad,
  async check(ctx, cases) {
    const before = await sendPlain(ctx, 'reportUsage');
    const b = expectAccepted(before, { what: 'a plain usage report before the bad bodies', blame: { assumption: 'caller-kinds' } });
    if (!b.ok) return b;
    for (const c of cases) {
      if (ctx.signal.aborted) break;
      const bad = await sendBad(ctx, c);
      const o = await stillServing(ctx, `a bad body (${c.bad}) to ${c.endpoint} (${describeResponse(bad)})`);
      if (!o.ok) return o;
    }
    return PASS;
  },
});

/** One byte over the registry's size reading (`body-size-limit`). */
export const OVERSIZE_BYTES = BODY_SIZE_CAP_BYTES + 1;

// Section 8 leaves size limits unstated: an oversized body may be refused, never crash the target.
const oversized = defineProperty({
  id: 'robustness.oversized-body',
  section: '8',
  invariant: `A body beyond any sane size (${BODY_SIZE_CAP_BYTES / 1024 / 1024} MiB + 1 byte) is answered without a 5xx, and the target serves the next request.`,
  assumptions: ['body-size-limit', 'caller-kinds'],
  needs: ['device'],
  // One case per run: the body is 64 MiB.
  runs: 1,
  concurrency: 1,
  arbitrary: () => fc.constant('reportUsage' as const),
  async check(ctx, endpoint) {
    // Only a target that served before the big body can be said to have stopped serving after it.
    const before = expectAccepted(await sendPlain(ctx, endpoint), { what: 'a plain usage report before the oversized body', blame: { assumption: 'caller-kinds' } });
    if (!before.ok) return before;
    const s = prepare(ctx, endpoint, plainRequest(endpoint));
    const head = Buffer.from('{"pad":"', 'utf8');
    const tail = Buffer.from(`",${JSON.stringify(s.body).slice(1)}`, 'utf8');
    const raw = Buffer.alloc(OVERSIZE_BYTES, 0x61);
    head.copy(raw, 0);
    tail.copy(raw, OVERSIZE_BYTES - tail.length);
    const ex = await ctx.call({ endpoint, params: s.params, rawBody: new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength) });
    const serverError = ex.response && ex.response.status >= 500 ? unexpected(ex) : undefined;
    if (serverError) return serverError;
    return stillServing(ctx, `a ${OVERSIZE_BYTES}-byte body (${describeResponse(ex)})`);
  },
});

/**
 * `application/json` as RFC 9110 (8.3) writes it: type and subtype without regard to case, with
 * parameters. A server comparing the header with one string refuses what every other client sends.
 */
export const JSON_MEDIA_TYPES = ['application/json; charset=utf-8', 'Application/JSON', 'application/json;charset=UTF-8'] as const;

/** Endpoints a plain request may be sent to in any run (4.6 only where the account may change). */
const PLAIN_ANYWHERE: readonly EndpointId[] = ['reportUsage', 'revokeBrowser', 'registerPasskey', 'approveDevice'];

// Intro: "All bodies are JSON (Content-Type: application/json)": the media type, however the header spells it.
const contentTypeVariants = defineProperty({
  id: 'robustness.content-type-variants',
  section: '2',
  invariant: 'A valid body sent as application/json with a charset parameter or in another case is served as it is with the plain header.',
  assumptions: ['content-type-json-only'],
  needs: ['browser', 'device'],
  arbitrary: () => fc.tuple(fc.constantFrom(...PLAIN_ANYWHERE), fc.constantFrom(...JSON_MEDIA_TYPES)),
  async check(ctx, [endpoint, type]) {
    const s = prepare(ctx, endpoint, plainRequest(endpoint));
    const ex = await ctx.call({ endpoint, params: s.params, body: s.body, headers: { 'content-type': type } });
    if (ex.verdict === 'accepted') return PASS;
    // A copy refused after a nemesis resend may be refused for its own first copy, not for its header.
    const u = unexpected(ex, `${endpoint} with Content-Type ${type}`) ?? refusedAfterResend(ex);
    if (u) return u;
    // The control: the same kind of request with the header as the harness always sends it.
    const plain = await sendPlain(ctx, endpoint);
    if (plain.verdict !== 'accepted') return unexpected(plain) ?? refusedAfterResend(plain) ?? PASS;
    return assumptionMismatch(
      'content-type-json-only',
      `${endpoint}: a valid body sent with Content-Type ${JSON.stringify(type)} was refused (${describeResponse(ex)}), while the same request sent with application/json is accepted: the media type is application/json either way (RFC 9110 8.3: case-insensitive, parameters allowed)`,
    );
  },
  describe: ([endpoint, type]) => `${endpoint} with Content-Type ${type}`,
});

/**
 * Ops of maximal envelope in the large commit: about 11 MB, past the body caps servers and proxies
 * ship with (Express's 100 kB, nginx's 1 MiB client_max_body_size, 6 MB and 10 MB gateway payload
 * limits), at a fraction of the cost of the largest commit the limits allow.
 */
export const LARGE_COMMIT_OPS = Math.min(16, LIMITS.opsPerCommit.max);
/**
 * The largest commit the limits allow: every op with an envelope of the maximal length, about
 * 35 MB, past caps set between 11 MB and that (Kestrel's default 30,000,000 bytes). It costs a few
 * seconds a run, so the readings zoo leaves it out, as it leaves the cost probe: it reads no reading
 * the zoo switches but pouch-existence, which its control covers.
 */
export const LARGEST_COMMIT_OPS = LIMITS.opsPerCommit.max;

// Section 8 states the limits and no request size limit: a commit within every stated limit is not refused for its size.
function largeBodyAccepted(id: string, ops: number, what: string): Property<number> {
  return defineProperty({
    id,
    section: '8',
    invariant: `A commit of ${ops} ops with envelopes of the maximal length (about ${Math.round((ops * LIMITS.envelopeLength.max) / 1e6)} MB), within every stated limit, is accepted as a plain commit is.`,
    assumptions: ['body-size-limit', 'pouch-existence', 'op-semantics', 'empty-lists'],
    needs: ['device', 'pouch'],
    // One case per run: the body is the size it is.
    runs: 1,
    arbitrary: () => fc.constant(ops),
    async check(ctx, n) {
      const pouch = pouchFor(ctx);
      const envelope = 'A'.repeat(LIMITS.envelopeLength.max);
      const sent: Op[] = Array.from({ length: n }, () => op(ctx, { type: 'create', artifact: ctx.uuid(), revision: ctx.uuid(), base: null }, { envelope }));
      const said = `a commit of ${n} ops with ${envelope.length}-character envelopes`;
      const ex = await commit(ctx, pouch, sent);
      const u = unexpected(ex, said);
      if (u) return u;
      if (fates(ctx, ex, sent).batch === 'applied') return PASS;
      // Refused after a nemesis resend: the first copy may have applied, so the refusal says nothing of size.
      const resent = refusedAfterResend(ex);
      if (resent) return resent;
      // The control: a plain commit of one op. Refused too, the refusal is not about size (other properties judge it).
      const small = [op(ctx, { type: 'create', artifact: ctx.uuid(), revision: ctx.uuid(), base: null })];
      const plain = await commit(ctx, pouch, small);
      if (unexpected(plain) || fates(ctx, plain, small).batch !== 'applied') return refusedAfterResend(plain) ?? PASS;
      return assumptionMismatch('body-size-limit', `${said} (${ex.request.body.byteLength} bytes) was refused (${describeResponse(ex)}), while a plain commit is accepted: every body the stated limits allow is to be accepted`);
    },
    describe: (n) => `a commit of ${n} ops with maximal envelopes (${what})`,
  });
}

const largeBody = largeBodyAccepted('robustness.large-body-accepted', LARGE_COMMIT_OPS, 'past the common body caps');
const largestBody = largeBodyAccepted('robustness.largest-body-accepted', LARGEST_COMMIT_OPS, 'the largest the limits allow');

const ROBUSTNESS: readonly Property[] = [malformedRejected, stillServingProp, oversized, contentTypeVariants, largeBody, largestBody];
export default ROBUSTNESS;
