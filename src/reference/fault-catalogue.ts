/**
 * The catalogue of named faults, as data (faults.ts serves it): realistic defects the reference can
 * be switched into, one at a time, to show that each property of pouchproof catches a real mistake. Every fault is off by
 * default and is consulted at the one place where an implementer would make that mistake (see the
 * `faults.has(...)` calls in the handlers). `expectedKillers` names the property ids (CONTRACTS.md)
 * expected to fail against it; ids beginning with `load.` name load checks instead (see
 * `LOAD_KILLERS` in src/cli/commands/mutants.ts).
 */
import { MAX_SAFE, type AssumptionName, type Readings } from '../spec/index.ts';
import type { Reading } from './reading-catalogue.ts';
import { STORE_HOLD_MS, STORE_POOL_SIZE } from './store-pool.ts';

export interface FaultInfo<N extends string = string> {
  readonly name: N;
  readonly area: string;
  readonly description: string;
  readonly expectedKillers: readonly string[];
  /**
   * The registry reading this fault departs from, when the spec itself is silent on the behaviour.
   * Such a fault is caught as an `assumption` finding naming exactly this assumption, never as a
   * violation: pouchproof must not call it a breach of the spec's letter. Always `reading.name`.
   */
  readonly deviatesFrom?: AssumptionName;
  /**
   * The alternative reading this fault is: switching the fault on switches that reading on
   * (readings.ts), so its behaviour is written once, where the reading is decided.
   */
  readonly reading?: Reading;
  /**
   * Readings the defect only exists under (switched on with the fault); `pouchproof mutants` should
   * judge the run under them (`--assume`), since they are readings and not the defect.
   */
  readonly requires?: Readings;
}

/** `stall-periodic`: a request arriving at t (from the server's start) with (t mod P) < D is answered no earlier than the end of that window. */
export const STALL_PERIOD_MS = 1000;
export const STALL_MS = 100;
/** `json-huge-number-500`: Python's int() refuses longer digit strings (sys.int_info.default_max_str_digits, CVE-2020-10735). */
export const INT_DIGITS_CAP = 4300;
/** `quadratic-envelope`: characters of an envelope received per step, after each of which the whole prefix is checked again. */
export const ENVELOPE_CHUNK_CHARS = 2048;

/** `rollback-on-disconnect`: how long after its answer a commit's transaction stays open to a client's hang-up (a group-commit flush interval). */
export const ROLLBACK_WINDOW_MS = 50;

/** `retry-after-503-maximal`: the Retry-After (seconds) of its 503, the shortest a server can ask for but 0. */
export const MAXIMAL_ENVELOPE_RETRY_AFTER_S = 1;

/** `const N` keeps every name a literal, so `FaultName` is the union of the catalogue's names. */
function f<const N extends string>(
  name: N,
  area: string,
  description: string,
  expectedKillers: string[],
  extra: { readonly reading?: Reading; readonly requires?: Readings; readonly deviatesFrom?: AssumptionName } = {},
): FaultInfo<N> {
  return Object.freeze({
    name,
    area,
    description,
    expectedKillers: Object.freeze(expectedKillers),
    ...(extra.reading ? { deviatesFrom: extra.reading.name, reading: Object.freeze(extra.reading) } : {}),
    // A defect the spec is silent on that is no reading of its own (seq counted per batch): caught as an assumption finding.
    ...(extra.deviatesFrom ? { deviatesFrom: extra.deviatesFrom } : {}),
    ...(extra.requires ? { requires: Object.freeze({ ...extra.requires }) } : {}),
  });
}

const LIST = [
  // Validation off by one at the limits (each read from LIMITS, never a literal).
  f('ops-limit-off-by-one', 'limits', 'accepts one op more than the ops-per-commit maximum (LIMITS.opsPerCommit.max + 1)', ['rejection.violations-rejected']),
  f('blob-ids-off-by-one', 'limits', 'accepts one blob id more than the per-operation maximum (LIMITS.blobIdsPerOp.max + 1)', ['rejection.violations-rejected']),
  f('envelope-length-exclusive', 'limits', 'treats the envelope length maximum as exclusive: an envelope of exactly the maximum is rejected', ['boundaries.limits-accepted']),
  f('roster-statements-off-by-one', 'limits', 'accepts one roster statement more than the maximum (LIMITS.rosterStatements.max + 1)', ['rejection.violations-rejected']),
  f('roster-key-envelopes-exclusive', 'limits', 'treats the roster key_envelopes maximum as exclusive: exactly the maximum is rejected', ['boundaries.limits-accepted']),
  f('reason-length-exclusive', 'limits', 'treats the revoke reason maximum as exclusive: a reason of exactly the maximum is rejected', ['boundaries.limits-accepted']),
  f('usage-rows-off-by-one', 'limits', 'accepts one usage row more than the per-request maximum (LIMITS.usageRowsPerRequest.max + 1)', ['rejection.violations-rejected']),
  f('key-gen-zero-accepted', 'limits', 'accepts key_gen one below its minimum (LIMITS.keyGen.min - 1) in operations', ['rejection.violations-rejected']),
  f('length-in-utf16', 'limits', 'counts string lengths in UTF-16 code units: a value of maximal length in astral characters is rejected', ['boundaries.limits-accepted'], { reading: { name: 'characters-are-code-points', value: 'utf16' } }),
  f('day-pattern-only', 'limits', 'checks the usage day against the 20YY-MM-DD pattern only: 2026-02-30 is accepted', ['rejection.violations-rejected'], { reading: { name: 'day-calendar-valid', value: 'pattern-only' } }),
  // UUID rule variants.
  f('uuid-any-version', 'uuid', 'accepts any 8-4-4-4-12 hex string as a uuid, whatever its version and variant digits', ['rejection.violations-rejected']),
  f('uuid-nil-rejected', 'uuid', 'rejects the all-zero and all-f UUIDs, which 2.2 accepts', ['boundaries.limits-accepted', 'shapes.valid-accepted']),
  f('uuid-lowercase-only', 'uuid', 'accepts lowercase hex only: a uuid in uppercase is rejected', ['shapes.valid-accepted', 'boundaries.limits-accepted']),
  f('path-id-unvalidated', 'uuid', 'does not validate path parameters: a pouchId or sourceId of any form is used as is', ['rejection.violations-rejected']),
  // Roster-only limits.
  f('roster-limits-everywhere', 'roster', 'applies the revoke-roster length and alphabet limits of statements and key envelopes in 4.1, 4.4 and 4.6 too', ['roster.limits-only-in-roster']),
  // Usage merge semantics.
  f('usage-partial-store', 'usage', 'checks and stores a report row by row, throwing at the first invalid row: the valid rows before it stay stored though the report is refused', ['rejection.no-side-effect']),
  f('usage-summed', 'usage', 'adds reported counters to the stored row instead of keeping the larger total', ['usage.never-summed', 'usage.idempotent', 'usage.associative']),
  f('usage-last-write-wins', 'usage', 'a reported row always replaces the stored one, even with a smaller total', ['usage.monotone', 'usage.commutative']),
  f('usage-per-field-max', 'usage', 'keeps the maximum of each counter separately instead of the row with the larger total', ['usage.monotone', 'usage.commutative']),
  // Commits.
  f('stale-base-accepted', 'commits', 'accepts any earlier revision of the artifact as base, not only its head', ['commits.stale-base-rejected']),
  f('browser-stale-base-accepted', 'commits', 'serves the browser\'s unsigned commits (4.2) through a handler of their own that accepts any earlier revision of the artifact as base: the device\'s signed path checks the head, the browser\'s does not', ['commits.stale-base-rejected']),
  f('create-overwrites', 'commits', 'a create on an existing artifact replaces it instead of conflicting', ['commits.create-existing-rejected']),
  f('revision-reuse-accepted', 'commits', 'does not check that a revision id is new in the pouch', ['commits.revision-reuse-rejected'], { deviatesFrom: 'revision-id-unique' }),
  f('partial-batch', 'commits', 'applies ops one by one and stops at the first conflict: earlier ops of a rejected batch stay applied', ['commits.atomic-batch', 'rejection.no-side-effect'], { deviatesFrom: 'batch-atomicity' }),
  f('no-batch-chaining', 'commits', 'checks every op against the heads before the batch: an op building on an earlier op of the same batch conflicts', ['commits.batch-chains'], { reading: { name: 'batch-chaining', value: 'pre-batch-heads' } }),
  f('operation-id-ignored', 'commits', 'does not deduplicate operation_id: a retried commit is processed again (and conflicts)', ['commits.operation-id-replay'], { reading: { name: 'operation-id-idempotency', value: 'not-deduplicated' } }),
  f('seq-per-batch', 'commits', 'gives every op of a batch the same seq (one increment per request)', ['commits.seq-increasing'], { deviatesFrom: 'seq-semantics' }),
  f('high-water-stale', 'commits', 'reports high_water as the pouch seq read before the batch was applied', ['commits.seq-increasing'], { deviatesFrom: 'seq-semantics' }),
  f('check-then-act-race', 'commits', 'awaits a simulated store round-trip between the conflict check and the apply: concurrent commits on one base can all apply', ['races.one-winner']),
  f('envelope-empty-refused', 'commits', 'refuses an op whose envelope is the empty string, which 2.5 allows ("may be empty")', ['boundaries.limits-accepted', 'shapes.valid-accepted']),
  f('quadratic-blob-ids', 'commits', 'adds an O(n²) duplicate check over each op\'s blob_ids (indexOf in a loop), rejecting duplicates (which the spec does not forbid: a valid batch refused) and slowing large commits', ['load.cost-curve', 'performance.cost-growth', 'shapes.valid-accepted', 'boundaries.limits-accepted']),
  // Service-Signature.
  f('signature-not-verified', 'signatures', 'requires the Service-Signature header but never verifies it', ['signatures.forgeries-rejected']),
  f('signature-header-optional', 'signatures', 'verifies Service-Signature when present but accepts a device commit without it', ['signatures.header-required']),
  f('signature-zero-accepted', 'signatures', 'does not range-check r and s: the signature r = s = 0 verifies (CVE-2022-21449)', ['signatures.forgeries-rejected']),
  f('signature-alg-none', 'signatures', 'trusts the protected header\'s alg: "alg":"none" skips verification', ['signatures.forgeries-rejected']),
  f('signature-kid-unbound', 'signatures', 'accepts a signature by any enrolled device key, not only the caller\'s own', ['signatures.forgeries-rejected'], { reading: { name: 'kid-binding', value: 'unbound' } }),
  f('signature-raw-bytes', 'signatures', 'hashes the body bytes as received instead of their canonical form', ['signatures.variants-accepted'], { reading: { name: 'canonical-json', value: 'raw-bytes' } }),
  f('signature-partial-body', 'signatures', 'hashes a typed view of the body that keeps required members only: optional op members (merge_parent_id, name_index, conflict_id) can be added or changed under a valid signature', ['signatures.forgeries-rejected', 'shapes.valid-accepted']),
  f('signature-low-s-only', 'signatures', 'rejects valid high-S signatures', ['signatures.variants-accepted'], { reading: { name: 'high-s-accepted', value: 'rejected' } }),
  // Authentication and isolation.
  f('auth-ignored', 'auth', 'a request without valid credentials is served as the primary account', ['auth.credentials-required'], { reading: { name: 'credentials-required', value: 'open' } }),
  f('revoke-keeps-sessions', 'auth', 'revoking a browser marks it revoked but never ends its session: its token keeps serving', ['revoke.ends-sessions']),
  f('cross-account-access', 'auth', 'does not check who owns a pouch: another account\'s device can commit to it', ['auth.cross-account']),
  f('separate-pouch-leak', 'auth', 'pouch ids are scoped per account for the pouch record (cross-account-isolation=separate-pouch), but artifacts and heads are looked up by pouch id alone: another account\'s update at the owner\'s head applies to the owner\'s artifact', ['auth.cross-account'], {
    requires: { 'cross-account-isolation': 'separate-pouch' },
  }),
  // Response envelope and data.
  f('envelope-missing-request-id', 'envelope', 'responses carry no meta.request_id', ['shapes.response-envelope']),
  f('envelope-wrong-types', 'envelope', 'integers in data (seq, high_water, stored, head_seq) are sent as strings, as read from a bigint column', ['shapes.response-envelope']),
  f('approve-camel-case', 'envelope', 'approve answers data.deviceId instead of data.device_id', ['approve.device-created', 'shapes.response-envelope']),
  f('passkey-data-null', 'envelope', 'passkey registration answers data: null', ['passkeys.response-object', 'shapes.response-envelope']),
  f('unlock-head-seq-stuck', 'envelope', 'the unlock head counter is never persisted: every change answers head_seq 1', ['unlock.head-seq'], { deviatesFrom: 'head-seq-semantics' }),
  // 4.5: "data.rotation_pending (boolean, required)": a required member dropped, or one typed as read from a text column.
  f('revoke-rotation-pending-missing', 'envelope', 'revoke answers data.revoked alone, without the required rotation_pending', ['shapes.response-envelope', 'shapes.valid-accepted']),
  f('revoke-rotation-pending-string', 'envelope', 'revoke answers data.rotation_pending as the string "true" or "false"', ['shapes.response-envelope', 'shapes.valid-accepted']),
  f('head-seq-not-integer', 'envelope', 'answers data.head_seq of 4.6 as a decimal string instead of an integer', ['unlock.head-seq', 'shapes.response-envelope']),
  // Robustness.
  f('body-cap-500', 'robustness', 'the body size cap throws a plain error instead of answering 413: an oversized body is answered 500', ['robustness.oversized-body']),
  f('malformed-json-500', 'robustness', 'a JSON syntax error escapes to the generic handler and is answered 500', ['robustness.malformed-rejected']),
  f('deep-nesting-crash', 'robustness', 'measures nesting depth recursively after parsing: a deeply nested body overflows the stack and the server stops serving', ['robustness.still-serving']),
  f('content-type-unchecked', 'robustness', 'parses any body as JSON whatever its Content-Type', ['robustness.malformed-rejected'], { reading: { name: 'content-type-json-only', value: 'sniffed' } }),
  f('invalid-utf8-accepted', 'robustness', 'decodes bodies leniently: invalid UTF-8 becomes U+FFFD instead of a 400', ['robustness.malformed-rejected']),
  f('duplicate-keys-last-wins', 'robustness', 'plain JSON.parse: a duplicate key is accepted and the last value wins', ['robustness.malformed-rejected'], { reading: { name: 'duplicate-keys', value: 'last-wins' } }),
  f('stall-periodic', 'robustness', `requests arriving in the first ${STALL_MS} ms of every ${STALL_PERIOD_MS} ms are held until the end of that window (a GC-like pause)`, ['load.open-model-p99']),
  // histories: defects only concurrent commits show, found by the per-artifact linearizability check.
  f('check-then-act-rename-delete', 'commits', 'awaits a store round-trip (a name-index or tombstone lookup) between the conflict check and the apply of a batch holding a rename or a delete: two renames or deletes racing on one base both apply', ['races.linearizable', 'races.one-winner']),
  f('batch-split-under-load', 'commits', 'applies a batch\'s first op at once and its other ops after a store round-trip, on the checks already made: a commit that moves one of those artifacts in between is overwritten (its update lost, the batch applied partly over it)', ['races.linearizable']),
  // selftests: faults that make the properties so far killed only by assumption findings fail a run, where the spec's words allow it.
  f('seq-snowflake', 'commits', 'seq and high_water are 64-bit snowflake ids (milliseconds since 2020 shifted left by 22 bits, plus the counter) sent as JSON numbers, beyond the largest value 2.6 allows (LIMITS.resultInteger.max)', ['commits.seq-increasing', 'shapes.response-envelope']),
  f('signature-header-literal', 'signatures', 'compares the JWS protected header as text with the one its own client writes ({"alg":"ES256","kid":…}) instead of parsing it: a valid signature whose header orders its members otherwise, has whitespace or a typ is rejected', ['signatures.variants-accepted']),
  f('auth-scheme-500', 'auth', 'reads the token as the second word of an Authorization header assumed to be Bearer: a header of another scheme (Basic …) fails unhandled and is answered 500', ['auth.credentials-required']),
  // runner: a target that goes down under a request (the runner's `crash` finding).
  f('dies-on-input', 'robustness', 'a JSON syntax error in a body is never caught: the process dies on the request (under pouchproof serve it exits; embedded, it stops listening and drops every connection)', ['robustness.malformed-rejected', 'robustness.still-serving']),
  // stateful: faults only a sequence of commits reveals.
  f('restore-any-revision', 'commits', 'a restore of a deleted artifact accepts any earlier revision of it as base (read as "bring back this revision"), not only the head, the delete', ['commits.model-sequences']),
  // coverage: defects in one variant of one field, which sampling misses in most seeds and the coverage phase finds in every one.
  f('lax-pattern', 'limits', 'checks an operation\'s signature against base64url with padding: a signature holding "=" (outside 2.5\'s alphabet A-Z a-z 0-9 _ -) is accepted', ['rejection.violations-rejected']),
  f('ops-limit-exclusive', 'limits', 'treats the ops-per-commit maximum as exclusive: a commit of exactly LIMITS.opsPerCommit.max ops is refused', ['boundaries.limits-accepted']),
  f('refuse-everything', 'envelope', 'answers every request with HTTP 400 and an envelope that says ok: true (a misconfigured gateway, or a handler that never gets past its guard)', ['usage.idempotent', 'shapes.valid-accepted', 'boundaries.limits-accepted']),
  f('signature-never-verifies', 'signatures', 'refuses every Service-Signature, a correct one included (a verifier that hashes another form than any reading names): a device can commit nothing', ['commits.stale-base-rejected', 'shapes.valid-accepted', 'boundaries.limits-accepted']),
  f('optional-member-required', 'limits', 'declares merge_parent_id as required-but-nullable, like base_revision_id beside it: an op that leaves it out (2.5: not required) is refused', ['shapes.valid-accepted', 'commits.seq-increasing']),
  f('nullable-missing-rewritten', 'limits', 'fills an absent base_revision_id with null while binding the body, before the signature is checked: a device\'s commit without it fails its signature, a browser\'s (unsigned, 4.2) is accepted', ['rejection.violations-rejected']),
  f('nullable-missing-as-null', 'limits', 'declares the required-but-nullable base_revision_id optional and reads its absence as null: a create without base_revision_id is accepted', ['rejection.violations-rejected']),
  // cost: a quadratic path on another dimension than blob_ids, for the cost probe (performance.cost-growth).
  f('quadratic-envelope', 'commits', `checks each op's envelope as if streamed ${ENVELOPE_CHUNK_CHARS} characters at a time, validating the whole prefix received so far against the alphabet after every chunk: O(n²) in the envelope's length`, ['performance.cost-growth']),
  f('envelope-regex-backtracking', 'limits', `checks the envelope's alphabet with a backtracking regex (^([A-Za-z0-9_-]+)*$, CWE-1333): on a mismatch the check restarts from every ${ENVELOPE_CHUNK_CHARS}th position, so refusing a long envelope with one bad last character takes O(n²) time (a valid one costs nothing more)`, ['performance.cost-growth']),
  f('member-names-quadratic', 'robustness', 'keeps an object\'s member names in a list for the duplicate check and compares each new name with every earlier one (CWE-407): a body with an object of many members costs O(n²) in their number', ['performance.cost-growth']),
  f('quadratic-usage-rows', 'usage', 'merges a report\'s rows through a list, finding each row\'s earlier copy by building the key of every row before it (findIndex): a report of n distinct rows costs O(n²)', ['performance.cost-growth']),
  // capacity: a server that degrades under load, for the capacity search (pouchproof load --find-capacity).
  f('store-pool-queue', 'robustness', `every request holds one of ${STORE_POOL_SIZE} simulated store connections while it is handled (its body read included) plus a ${STORE_HOLD_MS} ms round trip; beyond ${STORE_POOL_SIZE} in flight the rest wait in line: latency is flat up to ${(STORE_POOL_SIZE * 1000) / STORE_HOLD_MS} req/s and grows without bound above (a knee)`, ['load.capacity']),
  // mutation: defects the mutation run of the reference showed no property would see (docs/mutation.md).
  f('duplicate-keys-first-only', 'robustness', 'looks for a repeated member name only where the body repeats its first member (a shortcut that compares names with the leading one): a later member repeated at the end of the object is accepted, the last value winning', ['robustness.malformed-rejected'], { deviatesFrom: 'duplicate-keys' }),
  f('create-base-ignored', 'commits', 'a create of a new artifact never looks at its base_revision_id: one naming a base (any revision of the pouch) is applied', ['commits.create-existing-rejected'], { deviatesFrom: 'op-semantics' }),
  // defects: the gaps of docs/defects.md (issue 24), each a mistake a real implementation makes, each killed by the check added for it.
  // JSON parser leniency (what lenient parsers accept that RFC 8259 does not, src/reference/lenient-json.ts).
  f('json-comments', 'robustness', 'skips /* */ and // comments in a body (JSON5, Jackson ALLOW_COMMENTS): a body with a comment is accepted', ['robustness.malformed-rejected']),
  f('json-trailing-garbage', 'robustness', 'decodes the first JSON value of a body and ignores what follows (Go\'s json.Decoder, Jackson without FAIL_ON_TRAILING_TOKENS): a body with trailing garbage is accepted', ['robustness.malformed-rejected']),
  f('json-raw-control-chars', 'robustness', 'takes raw control characters (TAB, LF) inside strings (Python strict=False): a body with one is accepted', ['robustness.malformed-rejected']),
  f('json-lenient-numbers', 'robustness', 'reads numbers with leading zeros or a leading plus sign (01, +1): a body with one is accepted', ['robustness.malformed-rejected']),
  f('json-huge-number-500', 'robustness', `parses integers to arbitrary precision under a digit cap (Python 3.11's int(), CVE-2020-10735) whose error is not handled: a number of more than ${INT_DIGITS_CAP} digits is answered 500`, ['robustness.malformed-rejected']),
  f('lone-surrogate-500', 'robustness', 'encodes the body\'s strings with a strict UTF-8 encoder on their way to storage: a string holding an escaped lone surrogate (grammatical JSON) is answered 500', ['robustness.malformed-rejected']),
  f('usage-key-uri-encoded', 'robustness', 'builds a usage row\'s storage key with encodeURIComponent over its model: a model holding an escaped lone surrogate (grammatical JSON, RFC 8259 8.2) throws URIError, answered 500, while the parser and every other field take it', ['robustness.malformed-rejected']),
  f('duplicate-keys-escaped', 'robustness', 'looks for duplicate member names before unescaping them: "rows" and "\\u0072ows" are two names, the last value winning', ['robustness.malformed-rejected'], { deviatesFrom: 'duplicate-keys' }),
  f('content-type-exact', 'robustness', 'compares Content-Type with the string "application/json": application/json; charset=utf-8 and Application/JSON are refused with 415', ['robustness.content-type-variants'], { deviatesFrom: 'content-type-json-only' }),
  f('body-cap-1mib', 'robustness', 'refuses bodies over 1 MiB with 413 (nginx\'s default client_max_body_size left in front of the service): a commit of several maximal envelopes, within every stated limit, is refused', ['robustness.large-body-accepted', 'robustness.largest-body-accepted'], { deviatesFrom: 'body-size-limit' }),
  f('body-cap-30mb', 'robustness', 'refuses bodies over 30,000,000 bytes with 413 (Kestrel\'s default MaxRequestBodySize): a commit of 16 maximal envelopes (~11 MB) is accepted, the largest the limits allow (50, ~35 MB) is refused', ['robustness.largest-body-accepted'], { deviatesFrom: 'body-size-limit' }),
  // Validators and binders (src/reference/validate.ts).
  f('field-names-case-insensitive', 'limits', 'binds member names to the spec\'s fields without regard to case (Go\'s encoding/json): a required member sent as OPERATION_ID fills operation_id', ['rejection.violations-rejected']),
  f('charset-ascii-range', 'limits', 'checks the base64url alphabet with the class [A-z0-9_-], whose A-z also holds [ \\ ] ^ and the backtick: a value holding one is accepted', ['rejection.violations-rejected']),
  f('pattern-trailing-newline', 'limits', 'anchors patterns with a $ that matches before a final newline (Python re.match, PCRE): an alphabet string, a uuid or a day followed by "\\n" is accepted, in the body and in a path parameter', ['rejection.violations-rejected']),
  f('uuid-parsed-leniently', 'uuid', 'validates uuids with the platform\'s parser (Python uuid.UUID, .NET Guid.Parse): braces, a urn:uuid: prefix, no hyphens or surrounding white space are accepted and normalised', ['rejection.violations-rejected']),
  f('integer-string-coerced', 'limits', 'coerces a number written as a string into an integer field (Jackson scalar coercion, pydantic lax mode): "5" is accepted as 5', ['rejection.violations-rejected']),
  f('integer-float-truncated', 'limits', 'truncates a fraction in an integer field (Jackson ACCEPT_FLOAT_AS_INT): 1.5 is accepted as 1', ['rejection.violations-rejected']),
  f('integer-overflow-saturated', 'limits', `reads a number past every double (1e400, Infinity to JSON.parse) in an integer field as the field's bound, as a saturating parser whose range error is dropped does: a usage counter of 1e400, far over its maximum, is accepted as ${MAX_SAFE}`, ['robustness.malformed-rejected']),
  // Usage arithmetic and concurrency (src/reference/handlers/usage.ts).
  f('usage-total-double', 'usage', 'adds a row\'s counters up in doubles: past 2^53 a total larger by one compares equal, and the larger row is not kept', ['usage.large-totals']),
  f('usage-merge-total-bounded', 'usage', `checks a row's total as a safe integer only when it compares two (a row already held): a new row whose counters sum past ${MAX_SAFE} is accepted, the same row reported again to its source is refused`, ['usage.large-totals']),
  f('usage-total-bounded', 'usage', `reads "at most ${MAX_SAFE} each" as a bound on the row's total (a safe-integer check on the sum): a row whose four counters are each within it but sum past it is refused`, ['usage.large-totals']),
  f('usage-check-then-act', 'usage', 'reads the held row, awaits a store round trip, then writes its merge: of two concurrent reports of one row, the one written last wins even with the smaller total', ['usage.concurrent-reports']),
  // Service-Signature (src/reference/signature.ts): a hand-written verifier's shortcuts.
  f('signature-crit-ignored', 'signatures', 'ignores the protected header\'s crit member (RFC 7515 4.1.11 says an unknown critical extension MUST be refused): a signature with crit ["x-…"] verifies', ['signatures.forgeries-rejected']),
  f('signature-b64-without-crit', 'signatures', 'honours "b64": false without "crit": ["b64"] (RFC 7797 section 6): a signature over the unencoded digest verifies', ['signatures.forgeries-rejected']),
  f('signature-embedded-jwk', 'signatures', 'verifies with the key the protected header carries in jwk when there is one (CVE-2018-0114): an attacker\'s key signs for the device', ['signatures.forgeries-rejected']),
  f('signature-hmac-public-key', 'signatures', 'verifies alg HS256 with the device\'s public key (PEM) as the HMAC secret (CVE-2016-10555): anyone holding the public key signs', ['signatures.forgeries-rejected']),
  f('signature-der-accepted', 'signatures', 'accepts an ASN.1 DER signature as well as the 64-byte r||s form RFC 7518 3.4 requires (Node\'s crypto.verify default)', ['signatures.forgeries-rejected']),
  f('signature-lenient-base64', 'signatures', 'decodes the signature segment with a lenient base64 decoder (Buffer.from(s, "base64")): "=" padding and the + / alphabet are accepted', ['signatures.forgeries-rejected']),
  f('signature-attached-payload', 'signatures', 'trusts an attached payload: when the payload segment is not empty the signature is checked over it, not over the body\'s digest', ['signatures.forgeries-rejected']),
  f('signature-x5c-trusted', 'signatures', 'verifies with the key of the first certificate in the protected header\'s x5c, building no chain to a trusted root: an attacker\'s self-signed certificate signs for the device', ['signatures.forgeries-rejected']),
  f('signature-kid-path', 'signatures', 'reads the verification key from a file named by kid: a kid of ../../dev/null (an empty file) with alg HS256 verifies with the empty secret', ['signatures.forgeries-rejected']),
  f('signature-kid-fallback', 'signatures', 'looks the verification key up by kid and, when the kid names no enrolled device (or is not a string), falls back to the caller\'s own key: under kid-binding=bound a kid of nobody verifies', ['signatures.forgeries-rejected'], { deviatesFrom: 'kid-binding' }),
  f('signature-cache-by-header', 'signatures', 'caches verification by header value: a header that verified once is accepted again without hashing the body, so it signs any other body', ['signatures.forgeries-rejected']),
  // Scope: what a key names (src/reference/handlers/commit.ts).
  f('artifacts-keyed-by-id', 'commits', 'keys the artifact table by account and artifact_id, not by pouch: an op sent to one pouch on the head of an artifact of another pouch of the account applies, and moves that artifact', ['commits.stale-base-rejected'], { deviatesFrom: 'op-semantics' }),
  f('operation-id-global', 'commits', 'keeps one idempotency table for the whole service, keyed by operation_id alone, and answers a hit with the remembered response as it was: another account\'s commit that reuses an operation_id is not applied and is answered the first commit\'s results (the other account\'s artifact and revision ids)', ['auth.cross-account']),
  // The boundary of a reading (src/reference/validate.ts).
  f('usage-day-today-refused', 'limits', 'under usage-day-window=not-future, refuses the current UTC day too: the check is written day >= today', ['boundaries.limits-accepted'], { requires: { 'usage-day-window': 'not-future' } }),
  f('revision-batch-unchecked', 'commits', 'under revision-id-unique=per-artifact, looks a revision id up among the artifact\'s stored revisions only, not among the batch\'s earlier ops: a batch that uses one revision id twice in one artifact applies', ['commits.revision-reuse-rejected'], { deviatesFrom: 'revision-id-unique', requires: { 'revision-id-unique': 'per-artifact' } }),
  f('per-op-result-unshaped', 'envelope', 'under conflict-behaviour=per-op-status, answers an op it did not apply with its status and artifact_id alone: no revision_id, seq or high_water, which 2.6 requires of every result', ['commits.stale-base-rejected'], { requires: { 'conflict-behaviour': 'per-op-status' } }),
  // State: what a store keeps (src/reference/store.ts).
  f('revision-owner-last', 'commits', 'keeps one artifact per revision id (the last to use it): under revision-id-unique=per-artifact, artifact A may reuse its own revision id once artifact B has used it', ['commits.revision-reuse-rejected'], { deviatesFrom: 'revision-id-unique', requires: { 'revision-id-unique': 'per-artifact' } }),
  // Members the spec does not list, read one way in one body and another in the next (src/reference/validate.ts).
  f('commit-unlisted-member-refused', 'parser', 'checks the commit body, the one body it signs, against a strict schema: a member the spec does not list, at the top or in an op, is refused with 400, while every other body ignores such members, the usage report the probe asks about unknown-fields-ignored among them', ['shapes.valid-accepted'], { deviatesFrom: 'unknown-fields-ignored' }),
  // Throttling: a refusal that stays with one request is no throttle (src/target/throttle.ts `givesUp`).
  f('retry-after-503-maximal', 'robustness', `answers 503 with Retry-After: ${MAXIMAL_ENVELOPE_RETRY_AFTER_S} to every commit holding an envelope of the maximal length (LIMITS.envelopeLength.max), at any rate (a blob store that times out on the largest envelopes, reported as "busy, retry later"): the same request is refused however long the client backs off, a server error on that request, not throttling`, ['boundaries.limits-accepted', 'robustness.large-body-accepted', 'robustness.largest-body-accepted']),
] as const;

export type FaultName = (typeof LIST)[number]['name'];

/**
 * Faults only a nemesis on the wire can show (docs/nemesis.md): kept apart from `FAULTS`, whose
 * every entry the plain suite must kill; these must stay silent without the nemesis and be killed with it.
 */
const NEMESIS_ONLY_LIST = [
  f('commit-dedup-by-request-id', 'commits', 'leases each operation_id record to the request that committed it (its connection): once that connection has closed (the client lost the answer and hung up), a commit naming that operation_id is taken for a request the server dropped half-way, and its ops whose revisions are already the heads are written again as sent, with new seqs, and answered as applied; the record stays the first attempt\'s, so every later replay writes them again', ['commits.operation-id-replay']),
  f('rollback-on-disconnect', 'commits', `answers a commit before its transaction commits (at the log's next group flush, within ${ROLLBACK_WINDOW_MS} ms) and binds the transaction to the request: a client that hangs up in between cancels it, and the acknowledged ops are rolled back; the operation_id record, kept outside the transaction, stays, so a retry is answered the first result for ops the pouch no longer holds`, ['races.linearizable']),
  f('stream-partial-batch', 'commits', 'streams a commit\'s body and applies each op as it is parsed, in a transaction a conflict rolls back; a connection cut mid-body ends the stream like the end of the batch, and the ops read so far are committed (before any signature over the whole body could be checked)', ['commits.atomic-batch'], { deviatesFrom: 'batch-atomicity' }),
  f('usage-dedup-by-connection', 'usage', 'keeps its idempotency cache with the connection: a usage report body already applied is recognised only while the connection that applied it is open; once it closed (the client lost the answer and hung up), the same body retried on a new connection is taken for new usage and its counters are added to the held rows', ['usage.idempotent', 'usage.never-summed', 'usage.monotone', 'usage.commutative', 'usage.associative', 'usage.large-totals']),
] as const;

export type NemesisOnlyFaultName = (typeof NEMESIS_ONLY_LIST)[number]['name'];

export const NEMESIS_ONLY_FAULTS: readonly FaultInfo<NemesisOnlyFaultName>[] = Object.freeze(NEMESIS_ONLY_LIST);

export const FAULTS: readonly FaultInfo<FaultName>[] = Object.freeze(LIST);

/**
 * The shortcuts of a hand-written JWS verifier that trusts what the protected header says, each a
 * fault taken only where its header feature is present (src/reference/signature.ts).
 */
export const SIGNATURE_SHORTCUT_FAULTS = [
  'signature-crit-ignored',
  'signature-b64-without-crit',
  'signature-embedded-jwk',
  'signature-hmac-public-key',
  'signature-der-accepted',
  'signature-lenient-base64',
  'signature-attached-payload',
  'signature-x5c-trusted',
  'signature-kid-path',
] as const satisfies readonly FaultName[];

/** A fault combined with a reading under which it has no meaning, and why. */
export interface FaultReadingConflict {
  readonly fault: FaultName;
  readonly reading: Reading;
  readonly why: string;
}

/**
 * Combinations a test of faults × readings must skip, beyond the ones `faultReadingConflict` finds
 * by itself (a fault that is a reading, or requires one, with another value of that assumption).
 * Every other combination still shows the fault's defect.
 */
export const FAULT_READING_CONFLICTS: readonly FaultReadingConflict[] = Object.freeze([
  // Seen only through the browser's unsigned commit: where every commit must be signed, the browser's fails its signature too.
  {
    fault: 'nullable-missing-rewritten',
    reading: { name: 'signature-required-callers', value: 'everyone' },
    why: 'under signature-required-callers=everyone a browser commit must be signed too, and the rewritten body fails every signature: no commit without base_revision_id is accepted, so no request can see the fault',
  },
  // stored is the only window on the usage rows (no read endpoint): when it counts rows rather than
  // changes, how a row merges (summed, replaced, kept) never shows in any answer.
  ...(['usage-summed', 'usage-last-write-wins', 'usage-per-field-max', 'usage-total-double', 'usage-check-then-act'] as const).flatMap((fault) =>
    (['rows-held', 'rows-accepted'] as const).map((value) => ({
      fault,
      reading: { name: 'usage-stored-meaning', value } as const,
      why: `under usage-stored-meaning=${value} stored counts rows, not their totals: no answer shows how a row merges, so no request can see the fault`,
    })),
  ),
  {
    fault: 'partial-batch',
    reading: { name: 'batch-atomicity', value: 'per-op' },
    why: 'under per-op atomicity the ops before a conflict apply by design; what is left of the fault (it also drops the valid ops after the conflict) is another defect',
  },
  {
    fault: 'cross-account-access',
    reading: { name: 'cross-account-isolation', value: 'separate-pouch' },
    why: 'with pouches scoped per account there is no owner check to skip (separate-pouch-leak is the defect of that reading)',
  },
  {
    fault: 'signature-partial-body',
    reading: { name: 'canonical-json', value: 'raw-bytes' },
    why: 'a raw-bytes digest never looks at the parsed body, so the typed view the fault hashes is not used',
  },
  // The bad bodies that show these parser faults carry an unlisted member, which that reading refuses whatever the parser made of it.
  ...(['json-raw-control-chars', 'json-lenient-numbers'] as const).map((fault) => ({
    fault,
    reading: { name: 'unknown-fields-ignored', value: 'rejected' } as const,
    why: 'the bad body shows the leniency in an unlisted member, which unknown-fields-ignored=rejected refuses whatever the parser made of it',
  })),
  {
    fault: 'duplicate-keys-escaped',
    reading: { name: 'duplicate-keys', value: 'last-wins' },
    why: 'under duplicate-keys=last-wins a repeated name, escaped or not, is no defect',
  },
  // A replay under these readings is refused or evaluated again: the global table answers no one else's results.
  ...(['replay-rejected', 'not-deduplicated'] as const).map((value) => ({
    fault: 'operation-id-global' as const,
    reading: { name: 'operation-id-idempotency', value } as const,
    why: `under operation-id-idempotency=${value} no remembered result is ever answered, so a table shared by every account shows nothing of anyone's pouch`,
  })),
  {
    fault: 'operation-id-global',
    reading: { name: 'pouch-existence', value: 'must-exist' },
    why: 'the profile lists pouches of the first account only: the second account has no pouch of its own to commit to, and the first account\'s are refused to it before any operation_id is looked up',
  },
  {
    fault: 'signature-kid-fallback',
    reading: { name: 'kid-binding', value: 'caller-key' },
    why: 'under kid-binding=caller-key the caller\'s key verifies whatever the kid says, which is all the fault\'s fallback does: no request can see it',
  },
  {
    fault: 'content-type-exact',
    reading: { name: 'content-type-json-only', value: 'sniffed' },
    why: 'a server that parses any body as JSON never looks at the Content-Type the fault compares',
  },
]);
