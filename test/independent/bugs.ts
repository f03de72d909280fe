/**
 * The switchable single bugs: one realistic mistake per line of the defect catalogue that names
 * something this server's code can get wrong, each written where an implementer would make it
 * (grep the name). A bug is named after its catalogue line: the heading's short id, a dash, the
 * line's number (`K-UUID-1`, `4.3-6`; section 5's sentences are `5.1`, `5.2`, `5.3`).
 *
 * Lines left out, and why:
 * - Intro (none): every line has a bug; Intro-2 and 2.5-9 stop or hang the process, so score.ts runs
 *   each bug in a child process.
 * - K-B64 7 (bytes or UTF-16 units): the alphabet is ASCII, so every count agrees (an equivalent mutant).
 * - 1. 1 and 8, 2.2 1-3, 2.5 1, 4.2 15: references to other lines (K-ENUM, K-UUID, 4.3, section 5).
 * - 4.2 16 and 18: only under the reading `revision-id-unique=per-artifact`; this server keeps revision
 *   ids unique per pouch.
 * - 5.2 11 (`kid` as a path): this server has no key files; 5.2 15 and 16 (r, s range): node:crypto's
 *   verifier checks them, and nothing here would reduce mod n; 5.2 27 (path not covered): by the spec's
 *   words the digest covers the body only, so there is nothing to get wrong; 5.2 29 and 30: readings
 *   of the canonical form and JWS form, not code mistakes.
 *
 * Bugs kept in the list whose behaviour, as written, the spec allows (a score counts them as misses,
 * and nothing should catch them):
 * - Intro-10: as Intro-15, the digit cap's throw falls in parseBody's catch, so a 4,301-digit number
 *   is refused with a 400, not a 500; RFC 8259 section 9 lets a parser limit a number's size. The 500
 *   of that line is K-INT-8's (the cap met converting a bounded integer).
 * - Intro-15: the parser's throw on a lone surrogate falls in parseBody's catch, so the request is
 *   refused with a 400, not crashed; RFC 8259 section 8.2 leaves a lone surrogate to the receiver,
 *   and a refusal is one of its answers. The crash of that line is K-TEXT-4's (a model, 500).
 * - 5.2-6: the protected header's duplicate `alg` read last-wins, then checked as any header is (a
 *   last `none` is refused): RFC 7515 section 4 lets a JWS parser "use a JSON parser that returns only
 *   the lexically last duplicate member name".
 * - K-UUID-9: 2.2 says which forms of a UUID are accepted, not that `A…` and `a…` name one thing, and
 *   the spec names no UUID RFC (docs/defects.md: N).
 * - K-ENUM-4: "States and transitions: not shown" (3): refusing every resolve is what a server whose
 *   resolve needs a conflict, and where none arises, answers too; status codes and error bodies are
 *   not shown (7), so a 400 naming the type tells nothing the spec makes binding.
 * - 4.2-11: update or rename of a deleted artifact applied is the registry's default reading
 *   (op-semantics=base-only: every type needs only the head as base); this server's refusal is its own choice.
 * - 4.2-7 (a revision id reused): the spec states no uniqueness; the reading `revision-id-unique`
 *   decides it, and a run reports an assumption finding on it.
 * - 4.2-17 (operation_id deduplicated per account, not per pouch): the scope of an operation_id is
 *   not shown; it stays within the account (no other account's results are answered).
 * - 4.3-6, 4.3-7 and 4.3-8 (counters added; the last report wins; each counter's maximum): each merge
 *   writes every row it meets, so `stored` (rows that changed the store) counts the rows of each
 *   report, even one sent again, exactly as a correct server whose `stored` means rows-accepted does;
 *   with no endpoint that reads usage, no answer can tell them apart (4.3: "the exact meaning of
 *   stored: not shown"). A run says unknown.
 * - 2.7-2 (negative counters refused) and 5.2-26 (the digest over the body bytes as received): the
 *   readings usage-counters-negative=rejected and canonical-json=raw-bytes, which the run's probe
 *   identifies and judges under. 8-2 (a 1 MiB body cap): section 8 shows no request size limit; an
 *   assumption finding on body-size-limit (robustness.large-body-accepted), not a violation.
 * - K-INT-6 (`1.0`, `1e0`, `10E-1` refused for an integer) and K-INT-10 (`-0` refused): JSON has one
 *   number type, and the spec does not say whether `1.0` or `-0` spells the integer it names
 *   (docs/defects.md K-INT 6 and 10: N). K-INT-7 (`9007199254740991.4` read as 2^53-1): RFC 8259
 *   section 6 lets a parser approximate a number within binary64's precision, so the request a double
 *   reads is the one it was meant to be (a case that demanded the refusal would fail every server built
 *   on JSON.parse).
 * - 2.5-8 and Intro-23 (quadratic work): the spec states no latency; the right answer is a
 *   `performance` finding (2.5-8 draws one: the envelope's length), which the score does not count.
 *   Intro-23's dimension (members of the body's top level, all unknown) is not probed.
 */

/** [name, what the bug does]. */
const LIST = [
  ['K-UUID-1', 'any 8-4-4-4-12 hex accepted, whatever the version and variant digits'],
  ['K-UUID-2', 'the nil and the all-f UUID refused'],
  ['K-UUID-3', 'upper or mixed case UUIDs refused'],
  ['K-UUID-4', 'a platform-style UUID parse: braces, urn:uuid:, 32 bare digits, surrounding space accepted'],
  ['K-UUID-5', 'a final newline stripped before the pattern ($ before a final newline)'],
  ['K-UUID-6', 'the first and last groups one digit short or long, or with non-hex letters, accepted'],
  ['K-UUID-7', 'an empty merge_parent_id/conflict_id read as absent'],
  ['K-UUID-8', 'the revoke path id not validated'],
  ['K-UUID-9', 'artifact identity case-sensitive (ids not lower-cased)'],
  ['K-B64-1', 'an alphabet string at its maximum length refused (< read for "at most")'],
  ['K-B64-2', 'an alphabet string one over its maximum accepted'],
  ['K-B64-3', 'the alphabet pattern has no $: any character after a valid prefix accepted'],
  ['K-B64-4', 'the class written [A-z0-9-]: [ \\ ] ^ ` accepted'],
  ['K-B64-5', 'a final newline stripped before the alphabet check'],
  ['K-B64-6', 'the standard base64 alphabet: - and _ refused, + / = accepted'],
  ['K-B64-8', 'the empty envelope refused'],
  ['K-INT-1', 'one below a stated minimum accepted (key_gen 0)'],
  ['K-INT-2', 'the maximum written as 2^53: 9007199254740992 accepted'],
  ['K-INT-3', 'the maximum itself refused (bound exclusive)'],
  ['K-INT-4', 'a fraction truncated to an integer'],
  ['K-INT-5', 'an integer written as a JSON string coerced'],
  ['K-INT-6', '1.0, 1e0, 10E-1 refused for an integer'],
  ['K-INT-7', 'an integer read through a double: 9007199254740991.4 accepted'],
  ['K-INT-8', 'an integer of over 4300 digits raises an uncaught error: 500'],
  ['K-INT-9', '1e400 read as Infinity slips past the bounds'],
  ['K-INT-10', '-0 refused'],
  ['K-ARR-1', 'one item over an array maximum accepted'],
  ['K-ARR-2', 'an array at its maximum refused'],
  ['K-ARR-3', 'one item under an array minimum accepted (no ops, no roster statement)'],
  ['K-ARR-4', 'an empty array refused where no minimum is stated'],
  ['K-ARR-5', 'a key_envelopes item that is not an object skipped instead of refused'],
  ['K-REQ-1', 'a missing welcome (4.1) accepted'],
  ['K-REQ-2', 'confirm_code null (4.1) accepted as absent'],
  ['K-REQ-3', 'welcome (4.1) of another JSON type accepted'],
  ['K-REQ-4', 'member names matched without regard to case'],
  ['K-REQ-5', 'an unknown member of the commit body refused'],
  ['K-REQ-6', 'conflict_id null refused'],
  ['K-ENUM-1', 'op type compared without case'],
  ['K-ENUM-2', 'op type trimmed before comparison'],
  ['K-ENUM-3', 'an unknown op type falls through to update'],
  ['K-ENUM-4', 'the listed type resolve refused'],
  ['K-TEXT-1', 'text length counted in UTF-16 units'],
  ['K-TEXT-2', 'text length counted in UTF-8 bytes'],
  ['K-TEXT-3', 'text one character over its maximum accepted'],
  ['K-TEXT-4', 'a model with a lone surrogate makes the server fail (encodeURIComponent): 500'],
  ['K-TEXT-5', 'the model NFC-normalised before it is keyed'],
  ['Intro-1', 'a JSON syntax error escapes to the generic handler: 500'],
  ['Intro-2', 'the process dies on a JSON syntax error'],
  ['Intro-3', 'trailing commas accepted'],
  ['Intro-4', 'single-quoted strings accepted'],
  ['Intro-5', 'NaN, Infinity, -Infinity accepted'],
  ['Intro-6', 'comments accepted'],
  ['Intro-7', 'trailing garbage after the value ignored'],
  ['Intro-8', 'raw control characters inside strings accepted'],
  ['Intro-9', 'numbers with leading zeros or a leading + accepted'],
  ['Intro-10', 'a number lexeme of over 4300 characters raises an uncaught error: 500'],
  ['Intro-11', 'an empty body or a JSON scalar taken for an empty object'],
  ['Intro-12', 'invalid UTF-8 decoded leniently into U+FFFD'],
  ['Intro-13', 'a UTF-16 body decoded by sniffing'],
  ['Intro-14', 'a UTF-8 byte order mark refused'],
  ['Intro-15', 'an escaped lone surrogate crashes the request: 500'],
  ['Intro-16', 'duplicate member names accepted, the last winning'],
  ['Intro-17', 'the duplicate detector compares with the first member only'],
  ['Intro-18', 'the duplicate detector compares member names before unescaping'],
  ['Intro-19', 'a recursive depth walk: a deep body overflows the stack: 500'],
  ['Intro-20', 'a body over the cap answered 500 instead of 413'],
  ['Intro-21', 'a body of another Content-Type parsed as JSON'],
  ['Intro-22', 'the Content-Type compared as a string: parameters or case refused'],
  ['Intro-23', 'quadratic work in the number of top-level members'],
  ['1-2', 'an op on a stale base applies'],
  ['1-3', 'conflict check and write not atomic: racing commits on one base both apply'],
  ['1-4', 'a batch written in two steps: a commit in between is overwritten'],
  ['1-5', 'another account\'s device commits to a pouch'],
  ['1-6', 'pouch records scoped per account, artifacts not'],
  ['1-7', 'artifacts keyed by artifact_id alone across pouches'],
  ['2.1-1', 'ok missing on a success'],
  ['2.1-2', 'data null on a success'],
  ['2.1-3', 'meta missing on a success'],
  ['2.1-4', 'meta.request_id a number'],
  ['2.1-5', 'meta.next_cursor a number'],
  ['2.1-6', 'a success sent as text/plain'],
  ['2.3-1', 'roster statement limit 87384 (one over accepted)'],
  ['2.3-2', 'roster statement signature at 342 refused'],
  ['2.3-3', 'the roster\'s statement limits applied outside the roster'],
  ['2.3-4', 'a statement without signature accepted'],
  ['2.4-1', 'created_by_member not checked as a UUID'],
  ['2.4-2', 'roster key_gen 0 accepted'],
  ['2.4-3', 'the roster\'s key_gen range applied outside the roster (0 refused)'],
  ['2.4-4', 'roster ciphertext limit 5464 (one over accepted)'],
  ['2.4-5', 'the roster\'s ciphertext limit and alphabet applied outside the roster'],
  ['2.5-2', 'signer_member_id not checked as a UUID'],
  ['2.5-3', 'base_revision_id absent read as null'],
  ['2.5-4', 'merge_parent_id absent refused'],
  ['2.5-5', 'name_index of 42 characters accepted'],
  ['2.5-6', 'op key_gen 0 accepted'],
  ['2.5-7', 'an envelope of exactly 699051 characters refused'],
  ['2.5-8', 'the envelope validated in quadratic time'],
  ['2.5-9', 'the envelope checked with a backtracking regex (exponential on a long invalid one)'],
  ['2.5-10', 'op signature limit 344'],
  ['2.5-11', 'blob_ids limit 2048'],
  ['2.5-12', 'an invented blob_ids uniqueness rule, checked in O(n^2)'],
  ['2.5-13', 'blob_ids items of another type accepted'],
  ['2.6-1', 'an applied op answered status ok'],
  ['2.6-2', 'every result names the first op'],
  ['2.6-3', 'seq and high_water sent as strings'],
  ['2.6-4', 'seq and high_water beyond 2^53 (snowflake ids)'],
  ['2.6-5', 'seq moves once per batch'],
  ['2.6-6', 'high_water is the seq before the batch'],
  ['2.7-1', 'a usage counter written as a string coerced'],
  ['2.7-2', 'negative usage counters refused'],
  ['2.7-3', 'the counters\' bound applied to the row total'],
  ['2.7-4', 'day checked against the pattern only (2026-02-30 accepted)'],
  ['2.7-5', 'day with a final newline accepted'],
  ['2.7-6', 'day digits matched with \\p{Nd} (non-ASCII digits)'],
  ['2.7-7', 'leap days and 31st days refused'],
  ['2.7-8', 'a future day refused'],
  ['2.7-9', 'assistant accepts upper case and _'],
  ['2.7-10', 'an empty model accepted'],
  ['2.7-11', 'today and future days refused'],
  ['2.8-1', '17 roster statements accepted'],
  ['2.8-2', 'roster key_envelopes required'],
  ['4.1-1', 'the approve path id only checked for 36 characters'],
  ['4.1-2', 'key_envelopes absent accepted in 4.1'],
  ['4.1-3', 'one device id for every approval'],
  ['4.1-4', 'data.deviceId instead of data.device_id'],
  ['4.1-5', 'the roster\'s 2000 applied to 4.1 key_envelopes'],
  ['4.2-1', 'the pouchId path parameter not validated'],
  ['4.2-2', 'operation_id absent accepted'],
  ['4.2-3', 'ops limit 100'],
  ['4.2-4', 'per-op work re-serialises the batch: quadratic'],
  ['4.2-5', 'a create over an existing artifact replaces it'],
  ['4.2-6', 'a create naming a base applies'],
  ['4.2-7', 'a revision id reused'],
  ['4.2-8', 'a batch applied op by op: earlier ops of a refused batch stay'],
  ['4.2-9', 'ops of one batch checked against the heads before the batch'],
  ['4.2-10', 'a restore on any earlier revision applies'],
  ['4.2-11', 'update or rename of a deleted artifact applies'],
  ['4.2-12', 'a retry processed again'],
  ['4.2-13', 'idempotency keyed by operation_id alone'],
  ['4.2-14', 'results lack high_water'],
  ['4.2-17', 'idempotency keyed per account, not per pouch'],
  ['4.3-1', 'sourceId upper case accepted (lower-cased)'],
  ['4.3-2', 'sourceId of 31 or 33 characters accepted'],
  ['4.3-3', 'sourceId with a final newline accepted'],
  ['4.3-4', 'rows limit 2048'],
  ['4.3-5', 'rows compared pairwise: O(n^2)'],
  ['4.3-6', 'counters added to the stored row'],
  ['4.3-7', 'the last report wins'],
  ['4.3-8', 'the larger of each counter kept separately'],
  ['4.3-9', 'totals summed in doubles'],
  ['4.3-10', 'a total past 2^53-1 refused'],
  ['4.3-11', 'read, compare, write with an await between: concurrent reports lose the larger'],
  ['4.3-12', 'a re-send counted as a change'],
  ['4.3-13', 'rows keyed by (day, assistant) only'],
  ['4.3-14', 'stored counts every row held'],
  ['4.3-15', 'stored sent as a string'],
  ['4.4-1', 'response members __proto__ or constructor refused'],
  ['4.4-2', 'an array accepted as response'],
  ['4.4-3', 'the roster\'s limits applied to 4.4 key_envelopes'],
  ['4.4-4', 'data null'],
  ['4.5-1', 'an upper-case revoke path id refused'],
  ['4.5-2', 'roster null accepted'],
  ['4.5-3', 'reason limit 255'],
  ['4.5-4', 'the revoked browser\'s token keeps working'],
  ['4.5-5', 'revoked sent as the string "true"'],
  ['4.6-1', 'the roster\'s statement limits (1 to 16, alphabet) applied to 4.6'],
  ['4.6-2', 'head_seq sent as a string'],
  ['4.6-3', 'head_seq never moves'],
  ['5.1-1', 'a device commit without Service-Signature accepted'],
  ['5.1-2', 'the signature read from X-Service-Signature'],
  ['5.1-3', 'browsers must sign too'],
  ['5.2-1', 'the header parsed but the signature never verified'],
  ['5.2-2', 'alg none skips verification'],
  ['5.2-3', 'alg compared without case'],
  ['5.2-4', 'HS256 verified with the public key as the HMAC secret'],
  ['5.2-5', 'the hash chosen by alg (ES384/ES512 with the P-256 key)'],
  ['5.2-6', 'a duplicate alg read last-wins'],
  ['5.2-7', 'an unknown crit ignored'],
  ['5.2-8', 'b64:false honoured without crit'],
  ['5.2-9', 'a jwk in the header trusted'],
  ['5.2-10', 'an x5c certificate in the header trusted'],
  ['5.2-12', 'a kid that names no enrolled key skips verification'],
  ['5.2-13', 'every enrolled key tried'],
  ['5.2-17', 'a DER signature accepted'],
  ['5.2-18', 'the signature decoded leniently (Buffer base64)'],
  ['5.2-19', 'high-S signatures refused'],
  ['5.2-20', 'the protected header compared as text'],
  ['5.2-21', 'SHA-256 instead of BLAKE3'],
  ['5.2-22', 'an attached payload trusted as the digest'],
  ['5.2-23', 'the digest over required op members only'],
  ['5.2-24', 'the digest over ops only'],
  ['5.2-25', 'a verification cached by header value'],
  ['5.2-26', 'the digest over the body bytes as received'],
  ['5.2-28', 'kid picks the key among every account\'s devices'],
  ['5.3-1', 'op signatures "verified": anything but 86 characters refused'],
  ['5.3-2', 'an op without signature accepted'],
  ['7-1', 'ok false on a 2xx'],
  ['7-2', 'a 400 refusal sent as 200'],
  ['7-3', 'a stale base answered 200 with per-op status conflict'],
  ['8-1', 'reason length counted on the escaped JSON token'],
  ['8-2', 'a 1 MiB body cap'],
  ['8-3', 'a 30,000,000-byte body cap'],
  ['9-1', 'paths served without the /v1 prefix too'],
] as const;

export type BugName = (typeof LIST)[number][0];
export type BugCheck = (name: BugName) => boolean;

export interface Bug {
  readonly name: BugName;
  /** The catalogue line it implements: `<heading> <number>`. */
  readonly catalogue: string;
  readonly description: string;
}

const HEADINGS: Readonly<Record<string, string>> = {
  Intro: 'Introduction',
  '1': '1. What the service does',
  '2.1': '2.1 Common response envelope',
  '2.3': '2.3 Statement',
  '2.4': '2.4 Key envelope',
  '2.5': '2.5 Pouch operation',
  '2.6': '2.6 Operation result',
  '2.7': '2.7 Usage row',
  '2.8': '2.8 Roster',
  '4.1': '4.1 POST /v1/cli-auth/requests/{id}/approve',
  '4.2': '4.2 POST /v1/pouches/{pouchId}/operations',
  '4.3': '4.3 PUT /v1/usage/sources/{sourceId}',
  '4.4': '4.4 POST /v1/account/passkeys',
  '4.5': '4.5 POST /v1/browsers/{id}/revoke',
  '4.6': '4.6 PUT /v1/account/unlock',
  '5.1': '5. Authentication, sentence 1',
  '5.2': '5. Authentication, sentence 2',
  '5.3': '5. Authentication, sentence 3',
  '7': '7. Errors',
  '8': '8. Limits',
  '9': '9. Versioning',
};

function catalogueLine(name: string): string {
  const m = /^(.*)-(\d+)$/.exec(name)!;
  const heading = m[1]!.startsWith('K-') ? `${m[1]} (shared class)` : HEADINGS[m[1]!];
  return `${heading} ${m[2]}`;
}

export const BUGS: readonly Bug[] = LIST.map(([name, description]) => ({ name, description, catalogue: catalogueLine(name) }));

export const BUG_NAMES: ReadonlySet<string> = new Set(BUGS.map((b) => b.name));

export function isBugName(s: string): s is BugName {
  return BUG_NAMES.has(s);
}

export function bugCheck(bugs: Iterable<BugName>): BugCheck {
  const on = new Set<string>(bugs);
  return (name) => on.has(name);
}
