/**
 * The assumption registry: every "not shown" of SPEC.md as a named reading with a default and its
 * alternatives. A property that relies on one declares it; when a target behaves as an alternative
 * (or as none), the finding is an `assumption` mismatch, reported but never failed as a violation.
 * Profiles and `--assume NAME=VALUE` select another reading.
 */
import { MAX_SAFE } from './limits.ts';

/**
 * The size above which the registry's `body-size-limit` reading lets a server refuse a body: well
 * above the largest body the stated limits allow with realistic blob ids (~40 MB). Not a spec
 * limit: a reading of "request size limits: not shown", kept here so the reference server and the
 * robustness property share one number.
 */
export const BODY_SIZE_CAP_BYTES = 64 * 1024 * 1024;
const MIB = 1024 * 1024;

/**
 * The request header that asks the embedded reference for `Server-Timing: cpu` (its CPU time on the
 * request): sent by the cost probe in process only. Not a spec name: shared here so the reference
 * and the probe spell it once. Measuring is two getrusage calls, which summed over every request of a
 * suite were 3 % of its CPU, so only the requests that read it pay for it.
 */
export const CPU_TIMING_HEADER = 'pouchproof-cpu-timing';

/** Who decides a reading: the server under test, or the harness's own configuration of the run. */
export type DecidedBy = 'server' | 'harness';

/**
 * A situation of a request that a reading lets a server refuse: the cover of that reading. A
 * refusal is put down to a reading only when the refused request is inside its cover (and, for a
 * value, when the same request without it is accepted); a refusal outside every cover of the run's
 * readings and their alternatives is the spec's business.
 */
export type Situation =
  // Values a request may hold (found by walking its body against the model).
  | 'empty-list' // a list of zero items where no minimum is stated
  | 'text-over-limit-in-utf16' // a string within its limit in code points, over it in UTF-16 units (and so in bytes)
  | 'text-over-limit-in-bytes' // a string within its limit in code points and UTF-16 units, over it in UTF-8 bytes
  | 'negative-usage-counter'
  | 'unlisted-member' // a member the spec does not list
  | 'future-usage-day'
  | 'chained-batch' // an op naming, as its base or merge parent, a revision an earlier op of the batch creates
  | 'non-calendar-day' // a day that matches 20YY-MM-DD but names no calendar day
  // The request's setting (decided by the harness before it is sent).
  | 'unlisted-pouch' // a commit to a pouch id the profile does not list
  | 'unlisted-cli-request'
  | 'unlisted-browser'
  | 'caller-outside-catalogue' // a member kind calling an endpoint the catalogue gives another kind
  | 'unsigned-browser-commit'
  | 'signature-by-other-device'
  | 'high-s-signature'
  | 'signature-over-other-canonical-form'
  | 'signature-in-other-jws-form'
  | 'replayed-operation-id'
  | 'revision-reused-in-pouch' // a revision id used by another artifact of the pouch
  | 'commit-to-pouch-of-other-account'
  | 'no-credentials'
  | 'other-content-type'
  | 'duplicate-key'
  | 'body-over-size-cap';

export interface AssumptionChoice<V extends string = string> {
  readonly value: V;
  readonly meaning: string;
  /** What a server that takes this reading may refuse, beyond what the spec's words let every server refuse. */
  readonly covers: readonly Situation[];
  /**
   * The reading only narrows the default (`conflict-status=409` within `any-4xx`): answers that fit
   * it fit the default too, and the probe keeps the default rather than guess the narrower one.
   */
  readonly narrows?: boolean;
}

/** What a choice of the registry declares besides its meaning. */
interface ChoiceData {
  readonly covers?: readonly Situation[];
  readonly narrows?: boolean;
}

export interface Assumption<N extends string = string, V extends string = string> {
  readonly name: N;
  /** Spec sections whose "not shown" this reads. */
  readonly sections: readonly string[];
  /** The question the spec leaves open. */
  readonly question: string;
  readonly default: V;
  /** Every accepted value, the default first. */
  readonly choices: readonly AssumptionChoice<V>[];
  readonly rationale: string;
  /**
   * `server`: a behaviour of the target (the reference can serve every choice, `serve --reading`);
   * `harness`: how pouchproof drives the run (credentials, integer range), not a server's choice.
   */
  readonly decidedBy: DecidedBy;
}

type Choice<V extends string> = readonly [V, string] | readonly [V, string, ChoiceData];

/** `const` type parameters keep every name and value a literal, so readings are typed per assumption. */
function a<const N extends string, const V extends string>(
  name: N,
  decidedBy: DecidedBy,
  sections: string[],
  question: string,
  choices: readonly [Choice<V>, ...Choice<V>[]],
  rationale: string,
): Assumption<N, V> {
  return Object.freeze({
    name,
    sections: Object.freeze(sections),
    question,
    default: choices[0][0],
    choices: Object.freeze(
      choices.map(([value, meaning, data]) =>
        Object.freeze({ value, meaning, covers: Object.freeze([...(data?.covers ?? [])]), ...(data?.narrows ? { narrows: true } : {}) }),
      ),
    ),
    rationale,
    decidedBy,
  });
}

const LIST = [
  a('canonical-json', 'server', ['5'], 'What is the canonical form of the body that Service-Signature hashes?', [
    ['rfc8785', 'RFC 8785 JSON Canonicalization Scheme (JCS)', { covers: ['signature-over-other-canonical-form'] }],
    ['raw-bytes', 'the body bytes exactly as sent', { covers: ['signature-over-other-canonical-form'] }],
    ['sorted-compact', 'JSON.stringify with keys sorted recursively', { covers: ['signature-over-other-canonical-form'] }],
  ], 'JCS is the only standard canonical JSON and is what "canonical JSON" means in JOSE practice.'),
  a('jws-form', 'server', ['5'], 'What exactly is signed, and what does the protected header hold?', [
    ['digest-payload', 'payload = the raw 32-byte BLAKE3 digest; protected header {"alg":"ES256","kid":<device_id>}; compact form header..signature', { covers: ['signature-in-other-jws-form'] }],
    ['b64-text-payload', 'payload = the ASCII base64url text of the digest (encoded again in the signing input)', { covers: ['signature-in-other-jws-form'] }],
  ], 'A detached JWS "over the base64url encoding of the hash" reads most directly as the digest being the payload, whose base64url form is what the signing input contains.'),
  // Section 5 names ES256 and JWS but not whose key signs; RFC 7515 section 4.1.4 makes kid "a hint
  // indicating which key was used". Each reading says which key verifies and what the kid must name.
  a('kid-binding', 'server', ['5'], 'Must the JWS kid name the calling device, and whose key must verify the signature?', [
    ['bound', 'kid must equal the caller\'s device_id and the caller\'s key must verify; a signature by another enrolled device, or under a kid of no enrolled device, is rejected', { covers: ['signature-by-other-device'] }],
    ['unbound', 'any enrolled device key may sign: the kid names the enrolled device whose key must verify, so a kid of no enrolled device names no key and is rejected'],
    ['caller-key', 'kid is a hint (RFC 7515 section 4.1.4): the header carries one as the JWS form has it, and the signature must verify with the calling device\'s own key, whatever the kid says (another device, no device, not a string)', { covers: ['signature-by-other-device'] }],
  ], 'A signature proves who sent the commit only if the key is the caller\'s own, and a kid naming it is the plainest way to say so.'),
  a('high-s-accepted', 'server', ['5'], 'Are ECDSA signatures with s > n/2 valid?', [
    ['accepted', 'high-S signatures verify (RFC 7518 has no low-S rule)'],
    ['rejected', 'only low-S signatures verify', { covers: ['high-s-signature'] }],
  ], 'ES256 as specified by RFC 7518 accepts both (r, s) and (r, n - s).'),
  a('signature-required-callers', 'server', ['5'], 'Who must send Service-Signature?', [
    ['devices-only', 'command-line devices must sign commits; browsers need not'],
    ['everyone', 'every commit must be signed', { covers: ['unsigned-browser-commit'] }],
  ], 'Section 5 names command-line devices only.'),
  a('caller-auth', 'harness', ['5'], 'How do callers authenticate?', [
    ['profile-headers', 'the profile supplies request headers per member kind (default: Authorization: Bearer <token>)'],
  ], 'The spec shows no mechanism; headers per member kind cover bearer tokens, cookies and API keys alike.'),
  a('caller-kinds', 'server', ['4', '5'], 'Which member kind calls each endpoint?', [
    ['catalogue', 'devices commit (4.2) and report usage (4.3); browsers approve devices (4.1), register passkeys (4.4), revoke browsers (4.5) and change the master password (4.6)', { covers: ['caller-outside-catalogue'] }],
    ['any-member', 'every member kind may call every endpoint'],
  ], 'Section 1 describes devices committing and reporting usage from a computer, and account operations as a browser\'s.'),
  a('credentials-required', 'server', ['5'], 'Are requests without credentials, or with wrong ones, rejected?', [
    ['rejected', 'any 4xx (typically 401/403), nothing applied', { covers: ['no-credentials'] }],
    ['open', 'the endpoint is unauthenticated'],
  ], 'Access is held by members (section 1); an unauthenticated change would make membership meaningless.'),
  // Section 1 rules out pouches shared across accounts ("Access to pouches is held by members";
  // membership changes are signed statements), so no reading lets another account change a pouch.
  // What the server answers to an id another account holds is the open question.
  a('cross-account-isolation', 'server', ['1', '4.2'], 'What does a commit to a pouch id that another account holds do?', [
    ['refused', 'refused with a 4xx; nothing applied', { covers: ['commit-to-pouch-of-other-account'] }],
    ['separate-pouch', 'the id names a separate pouch of the caller\'s own account; the other account\'s pouch is untouched'],
  ], 'Refusing is the plainest way to keep a pouch to its members; pouch ids scoped per account are as consistent with section 1.'),
  a('error-response', 'server', ['7'], 'What does a rejection look like?', [
    ['any-4xx', 'any 4xx status; if the body is a JSON envelope, ok is not true'],
    ['envelope-ok-false', 'a 4xx with a JSON envelope whose ok is false', { narrows: true }],
    ['ok-false-any-status', 'an envelope whose ok is false, under any status: a refusal may come as a 2xx (section 7 makes only successes carry ok true)'],
  ], 'Status codes and error bodies are not shown; the 4xx class is the only safe common ground, and an envelope with ok false is never a success (section 7).'),
  a('conflict-behaviour', 'server', ['4.2', '7'], 'What happens when a base revision does not match the head?', [
    ['reject-request', 'the request is rejected with a 4xx'],
    ['per-op-status', 'a 2xx whose result for that op has a status other than applied'],
  ], 'Only the status applied is listed (2.6), so a non-applied op cannot be expressed in a success body.'),
  a('conflict-status', 'server', ['4.2', '7'], 'Which status does a refused commit answer?', [
    ['any-4xx', 'any 4xx; the harness does not rely on a code'],
    ['409', '409 Conflict', { narrows: true }],
    ['412', '412 Precondition Failed', { narrows: true }],
    ['400', '400 Bad Request', { narrows: true }],
  ], 'Status codes are not shown (section 7).'),
  a('batch-atomicity', 'server', ['4.2'], 'Is a batch applied all or nothing?', [
    ['atomic', 'a batch with any rejected op applies nothing'],
    ['per-op', 'valid ops of a batch apply even when others are rejected'],
  ], 'A commit with optimistic concurrency is a transaction; partial application loses the client\'s intent.'),
  a('operation-id-idempotency', 'server', ['4.2'], 'What does re-sending an operation_id do?', [
    ['replay-first-result', 'nothing is applied again; the first result is returned'],
    ['replay-rejected', 'the replay is rejected with a 4xx; nothing is applied again', { covers: ['replayed-operation-id'] }],
    ['not-deduplicated', 'operation_id carries no meaning: the replay is evaluated again (its ops then meet the heads the first attempt set)'],
  ], 'An operation id exists to make retries safe.'),
  a('op-semantics', 'server', ['2.5', '3', '4.2'], 'Which state rules apply to operation types?', [
    ['base-only', 'create needs a new artifact and a null base; every other type needs base_revision_id equal to the artifact\'s head; nothing else is checked'],
  ], 'States and transitions are not shown; the revision chain is the only rule the spec implies.'),
  a('batch-chaining', 'server', ['4.2'], 'May an op build on a revision an earlier op of the same batch created?', [
    ['chained', 'ops apply in order, so op k+1 may name op k\'s revision as its base'],
    ['pre-batch-heads', 'every op is checked against the heads before the batch', { covers: ['chained-batch'] }],
  ], 'A batch carries one client\'s consecutive edits; ordering them is what "commits operations" suggests.'),
  a('commit-results', 'server', ['4.2', '2.6'], 'How do results relate to the ops sent?', [
    ['one-per-op', 'one result per op, naming its artifact_id and revision_id'],
  ], 'Each result names an artifact and a revision, which only an op of the batch can give it.'),
  a('revision-id-unique', 'server', ['4.2'], 'May a revision id be used twice?', [
    ['per-pouch', 'a revision id already used in the pouch is rejected', { covers: ['revision-reused-in-pouch'] }],
    ['per-artifact', 'unique within its artifact only'],
  ], 'Revision ids name versions; reusing one makes a base ambiguous.'),
  a('seq-semantics', 'server', ['2.6'], 'What are seq and high_water?', [
    ['per-pouch', 'seq strictly increases per pouch with every applied op; high_water is the pouch\'s highest seq after the batch'],
    ['global', 'one counter for every pouch: seq strictly increases within a pouch but with gaps; high_water is at least every seq of the batch'],
  ], 'Only the types are shown; a per-pouch sequence is what a sync client needs to resume.'),
  a('pouch-existence', 'server', ['4.2'], 'Must a pouch exist before the first commit?', [
    ['created-on-commit', 'a commit to a new pouch id creates it for the caller\'s account'],
    ['must-exist', 'only pouches listed in the profile are used', { covers: ['unlisted-pouch'] }],
  ], 'No endpoint creating pouches is shown.'),
  a('usage-row-key', 'server', ['4.3'], 'What identifies a usage row?', [
    ['day-assistant-model', 'key (day, assistant, model); total = input + output + cache_read + cache_write; the larger total keeps all four counters'],
    ['day-assistant', 'key (day, assistant): rows of one assistant and day with different models are one row; the larger total keeps the whole row, model included'],
  ], '"per UTC day for the assistants" names day and assistant; a row also names its model.'),
  a('usage-stored-meaning', 'server', ['4.3'], 'What does data.stored count?', [
    ['rows-changed', 'rows this request inserted or raised'],
    ['rows-held', 'rows held for the source after the request'],
    ['rows-accepted', 'rows of the request that were valid and considered'],
  ], 'A re-sent report "changes nothing" (4.3 rule 2), which rows-changed makes observable as 0.'),
  a('usage-counters-negative', 'server', ['2.7', '8'], 'Are negative usage counters valid?', [
    ['accepted', 'counters are bounded only above, as written'],
    ['rejected', 'token counts are non-negative', { covers: ['negative-usage-counter'] }],
  ], 'The spec states only an upper bound.'),
  a('usage-day-window', 'server', ['2.7', '4.3'], 'Which days may a usage row name?', [
    ['any-day', 'any day the pattern allows, past or future'],
    ['not-future', 'a day after the current UTC day is refused', { covers: ['future-usage-day'] }],
  ], 'The spec states only the pattern; reports of days to come are odd but not forbidden.'),
  a('day-calendar-valid', 'server', ['2.7'], 'Must day be a real calendar day?', [
    ['calendar', '2026-02-30 and 2026-13-01 are rejected', { covers: ['non-calendar-day'] }],
    ['pattern-only', 'any value matching 20YY-MM-DD is accepted'],
  ], '"a UTC day" names a day, not a shape.'),
  a('characters-are-code-points', 'server', ['2', '8'], 'What is a "character" in a length limit?', [
    ['codepoints', 'Unicode code points'],
    ['utf16', 'UTF-16 code units (JavaScript string length)', { covers: ['text-over-limit-in-utf16'] }],
    ['bytes', 'UTF-8 bytes', { covers: ['text-over-limit-in-utf16', 'text-over-limit-in-bytes'] }],
  ], 'Unicode code points are what JSON text is made of (RFC 8259).'),
  a('integers-json-safe', 'harness', ['2', '8'], 'Which integers are sent where no bound is stated?', [
    ['safe', `only integers in ±${MAX_SAFE} (the spec's own bound)`],
  ], 'Larger integers do not survive JSON in most implementations.'),
  a('empty-lists', 'server', ['2.5', '4.1', '4.3', '4.6'], 'May a list with no stated minimum be empty (blob_ids, rows, statements, key_envelopes)?', [
    ['accepted', 'an empty list is valid where no minimum is stated'],
    ['rejected', 'an empty list is refused where the operation needs an item (e.g. 4.6 names add and remove statements)', { covers: ['empty-list'] }],
  ], 'Where the spec wants a minimum it states one (ops per commit, roster statements).'),
  a('unknown-fields-ignored', 'server', ['2'], 'What happens to fields the spec does not list?', [
    ['ignored', 'accepted and ignored'],
    ['rejected', 'rejected with a 4xx', { covers: ['unlisted-member'] }],
  ], 'Forward compatibility across versions (section 9).'),
  a('duplicate-keys', 'server', ['2'], 'What happens to a JSON object with a duplicate key?', [
    ['rejected', 'rejected with a 4xx', { covers: ['duplicate-key'] }],
    ['last-wins', 'the last value is used'],
  ], 'RFC 8259 says names SHOULD be unique; an ambiguous signed body must not be interpreted two ways.'),
  a('content-type-json-only', 'server', ['intro'], 'Is a body sent with another Content-Type accepted?', [
    ['rejected', 'rejected with a 4xx (415)', { covers: ['other-content-type'] }],
    ['sniffed', 'parsed as JSON anyway'],
  ], 'All bodies are JSON with Content-Type application/json.'),
  a('body-size-limit', 'server', ['8'], 'Request size limits are not shown: which sizes must be accepted?', [
    ['limits-allow', `every body the stated limits allow is accepted; bodies over ${BODY_SIZE_CAP_BYTES / MIB} MiB may be rejected with a 4xx`, { covers: ['body-over-size-cap'] }],
  ], 'A server may cap bodies, but never below what the stated limits permit.'),
  a('cli-request-exists', 'server', ['4.1'], 'Which cli-auth request ids can be approved?', [
    ['any-id', 'any well-formed id names a pending request'],
    ['profile-ids', 'only ids listed in the profile', { covers: ['unlisted-cli-request'] }],
  ], 'The step that creates a cli-auth request is not shown.'),
  a('browser-exists', 'server', ['4.5'], 'Which browser ids can be revoked?', [
    ['any-id', 'any well-formed id; revoking an unknown or revoked browser succeeds'],
    ['profile-ids', 'only browser member ids listed in the profile', { covers: ['unlisted-browser'] }],
  ], 'Revocation is idempotent in effect; member listing is not shown.'),
  a('opaque-crypto-fields', 'server', ['2.3', '2.4', '2.5', '4.1'], 'Does the server check statements, envelopes, welcomes and operation signatures?', [
    ['opaque', 'their meaning and encoding are not shown, so any value within the stated limits is accepted'],
  ], 'Meaning and encoding of statement, welcome, hpke_enc and ciphertext are not shown.'),
  a('unlock-prepare', 'server', ['4.6'], 'Must a prepare step precede the unlock commit?', [
    ['not-required', 'the commit is accepted on its own'],
  ], 'The prepare step is not shown.'),
  a('head-seq-semantics', 'server', ['4.6'], 'What is data.head_seq of a master-password change?', [
    ['per-change', 'an account counter raised by one per accepted change'],
    ['per-statement', 'raised by the number of statements committed: a change with an empty statement list leaves it where it was'],
  ], 'Only "integer, required" is shown; a per-change counter is the simplest head.'),
  a('rate-limits', 'server', ['8'], 'What does the harness do when the target throttles a run?', [
    ['waited-out', 'a 429, or a 503 with Retry-After, is waited out (Retry-After honoured, capped; jittered backoff without it) and the same request sent again while backing off helps; the run\'s rate settles under the target\'s. A request still refused after a few retries while others are answered (or alone) gets the server\'s own answer: a 503 is a server error'],
  ], 'Rate limits are not shown: a throttle says "not now", never "no", so it is no outcome of a case; "not now" to one request at any rate is no throttle.'),
] as const;

type Entry = (typeof LIST)[number];

export type AssumptionName = Entry['name'];

/** The readings of one assumption, as literals: `ReadingOf<'usage-stored-meaning'>` is `'rows-changed' | 'rows-held' | 'rows-accepted'`. */
export type ReadingOf<N extends AssumptionName> = Extract<Entry, { readonly name: N }>['default'];

export const ASSUMPTIONS: readonly Assumption<AssumptionName>[] = Object.freeze(LIST);

export const ASSUMPTION_BY_NAME: ReadonlyMap<string, Assumption<AssumptionName>> = new Map(ASSUMPTIONS.map((x) => [x.name, x]));

/** A chosen reading per assumption, each typed by its own choices. */
export type AssumptionSet = { readonly [N in AssumptionName]: ReadingOf<N> };

/** Some readings, e.g. what a server was switched to or what discovery found. */
export type Readings = Partial<AssumptionSet>;

/** How a run's readings are chosen: discovered from the target first (`auto`), or the registry defaults. */
export type ReadingsMode = 'auto' | 'defaults';

// built from each entry's own default, which is one of its choices; fromEntries answers strings
export const DEFAULT_ASSUMPTIONS: AssumptionSet = Object.freeze(Object.fromEntries(ASSUMPTIONS.map((x) => [x.name, x.default])) as AssumptionSet);

/** Whether `name` is an assumption of the registry. */
export function isAssumptionName(name: string): name is AssumptionName {
  return ASSUMPTION_BY_NAME.has(name);
}

/** The readings as [name, value] pairs, typed by name (Object.entries answers plain strings). */
export function readingEntries(readings: Readings): [AssumptionName, string][] {
  return Object.entries(readings).flatMap(([name, value]): [AssumptionName, string][] => (isAssumptionName(name) && typeof value === 'string' ? [[name, value]] : []));
}

/** Whether `value` is one of the readings of `name`. */
export function isReading<N extends AssumptionName>(name: N, value: string): value is ReadingOf<N> {
  return ASSUMPTION_BY_NAME.get(name)?.choices.some((c) => c.value === value) ?? false;
}

/** The readings of `name` in registry order, each typed as one of its own: `readingsOf('jws-form')` is `JwsForm[]`. */
export function readingsOf<N extends AssumptionName>(name: N): ReadingOf<N>[] {
  return assumptionOf(name).choices.map((c) => c.value).filter((v): v is ReadingOf<N> => isReading(name, v));
}

/** The assumption's registry entry (total: every name has one). */
export function assumptionOf(name: AssumptionName): Assumption<AssumptionName> {
  // ASSUMPTION_BY_NAME holds every name of the registry
  return ASSUMPTION_BY_NAME.get(name)!;
}

/** The readings (assumption and value) whose cover holds `s`. */
export function readingsCovering(s: Situation): { readonly assumption: AssumptionName; readonly value: string }[] {
  return ASSUMPTIONS.flatMap((a) => a.choices.filter((c) => c.covers.includes(s)).map((c) => ({ assumption: a.name, value: c.value })));
}

/** Whether the run's reading of the assumption that covers `s` lets the target refuse it. */
export function coveredBy(s: Situation, readings: AssumptionSet): AssumptionName | undefined {
  return readingsCovering(s).find((r) => (readings)[r.assumption] === r.value)?.assumption;
}

/** Whether a registry reading has alternatives. */
export function hasAlternatives(name: AssumptionName): boolean {
  return assumptionOf(name).choices.length > 1;
}

/**
 * Validates NAME=VALUE overrides (from a profile, `--assume` or `serve --reading`), rejecting
 * unknown names and values with a message that lists what is accepted.
 */
export function parseReadings(overrides: Readonly<Record<string, string>> = {}): Readings {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(overrides)) {
    const def = ASSUMPTION_BY_NAME.get(name);
    if (!def) throw new Error(`unknown assumption "${name}"; known: ${ASSUMPTIONS.map((x) => x.name).join(', ')}`);
    if (!def.choices.some((c) => c.value === value)) {
      throw new Error(`assumption "${name}" has no reading "${value}"; choose one of: ${def.choices.map((c) => c.value).join(', ')}`);
    }
    out[name] = value;
  }
  return Object.freeze(out);
}

/** The defaults with `overrides` applied (validated as `parseReadings` does). */
export function resolveAssumptions(overrides: Readonly<Record<string, string>> = {}): AssumptionSet {
  return Object.freeze({ ...DEFAULT_ASSUMPTIONS, ...parseReadings(overrides) });
}
