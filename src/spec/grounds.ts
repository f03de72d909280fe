/**
 * What a judgement may rest on. pouchproof's promise is that a red run means the target broke the
 * spec, so every judgement that can produce a finding names its ground: a clause of SPEC.md, quoted
 * (then the finding is a `violation`), or a named reading of the assumption registry (then it is an
 * `assumption` finding). There is no third way. The quotes are the spec's own words; a test checks
 * each one against SPEC.md (`normaliseSpecText` on both sides: markdown table pipes, backticks and
 * emphasis removed, white space folded).
 */
import type { AssumptionName } from './assumptions.ts';
import { CHARSETS, LIMITS } from './limits.ts';

/** A clause of the spec: its section and its words, quoted. */
export interface SpecClause {
  readonly section: string;
  readonly quote: string;
}

export type Ground =
  | { readonly kind: 'spec'; readonly clause: SpecClause }
  | { readonly kind: 'reading'; readonly assumption: AssumptionName };

const clause = (section: string, quote: string): SpecClause => Object.freeze({ section, quote });

/**
 * The named clauses judgements cite (constraint judgements cite their constraint's own clause, see
 * the inventory). Names are stable ids for `pouchproof list --grounds` and the tests.
 */
export const CLAUSES = Object.freeze({
  jsonBodies: clause('intro', 'All bodies are JSON (`Content-Type: application/json`).'),
  membersHoldPouches: clause('1', 'Access to pouches is held by members.'),
  optimisticConcurrency: clause('1', 'Concurrency is optimistic and based on revision ids.'),
  envelopeFields: clause('2.1', 'Common response envelope (all operations)'),
  uuidForm: clause(
    '2.2',
    'Fields typed uuid are strings in the 8-4-4-4-12 hexadecimal form. The version digit is 1 to 8 and the variant digit is one of 8, 9, a, b (either case). The all-zero UUID and the all-f UUID are also accepted.',
  ),
  /** What `day-calendar-valid` reads: a day matching the pattern must also be "a UTC day". */
  usageDayIsUtcDay: clause('2.7', 'a UTC day'),
  successOkTrue: clause('7', 'Success responses carry `ok` true (2.1).'),
  approveCreatesDevice: clause('4.1', 'Authorizes a command-line device: adds it to the roster, stores the sealed welcome and the key envelopes, and creates the device.'),
  approveDeviceId: clause('4.1', 'Response: envelope (2.1) with `data.device_id` (string uuid, required).'),
  commitOperations: clause('4.2', `Commits ${LIMITS.opsPerCommit.min} to ${LIMITS.opsPerCommit.max} signed, encrypted operations with optimistic concurrency on revision ids.`),
  commitResults: clause('4.2', 'Response: envelope with `data.results`, an array of Operation result (2.6).'),
  resultStatusApplied: clause('2.6', 'status | string | yes | allowed value: applied'),
  envelopeMayBeEmpty: clause('2.5', `at most ${LIMITS.envelopeLength.max} characters, ${CHARSETS.base64url.text} (may be empty)`),
  usageReports: clause('4.3', 'Reports the tokens that the assistants on this computer used, per UTC day.'),
  usageNeverAdded: clause('4.3', 'Rows are never added up. Each keeps the larger of its stored and reported total.'),
  usageIdempotent: clause('4.3', 'Sending the same logs again changes nothing (idempotent).'),
  usageStored: clause('4.3', `Response: envelope with \`data.stored\` (integer, required, ${LIMITS.storedInteger.min} to ${LIMITS.storedInteger.max}).`),
  passkeyRegisters: clause('4.4', 'Registers a passkey unlocker together with its signed add(passkey member) statement.'),
  passkeyResponseFree: clause('4.4', 'free-form object with arbitrary properties'),
  revokeBrowser: clause('4.5', 'Revokes a browser member and ends its sessions.'),
  revokeData: clause('4.5', 'Response: envelope with `data.revoked` (boolean, required) and `data.rotation_pending` (boolean, required).'),
  unlockChanges: clause('4.6', 'Changes the master password by committing prepared parameters together with add(new) and remove(old) statements.'),
  unlockHeadSeq: clause('4.6', 'Response: envelope with `data.head_seq` (integer, required).'),
  rosterOnlyLimits: clause('2.4', 'The length and alphabet constraints are stated only for envelopes inside the revoke roster. Elsewhere the fields are plain strings.'),
  signatureRequired: clause('5', 'Command-line devices must send the header `Service-Signature` on the operations commit (4.2).'),
  signatureForm: clause('5', 'Its value is a detached ES256 JWS over the base64url encoding of the BLAKE3 hash of the canonical JSON body.'),
});

export type ClauseName = keyof typeof CLAUSES;

/** A ground that is a clause of the spec: what a judgement resting on one fixed clause carries. */
export type SpecGround = Extract<Ground, { readonly kind: 'spec' }>;

export const specGround = (name: ClauseName): SpecGround => Object.freeze({ kind: 'spec', clause: CLAUSES[name] });
export const clauseGround = (c: SpecClause): Ground => Object.freeze({ kind: 'spec', clause: c });
export const readingGround = (assumption: AssumptionName): Ground => Object.freeze({ kind: 'reading', assumption });

/** Spec text as quotes are compared: markdown table pipes, backticks and emphasis dropped, white space folded. */
export function normaliseSpecText(s: string): string {
  return s.replace(/[|`*]/g, ' ').replace(/\s+/g, ' ').trim();
}

/** One line for reports: `§4.3 "Rows are never added up. …"` or `reading usage-stored-meaning`. */
export function describeGround(g: Ground): string {
  switch (g.kind) {
    case 'spec':
      return `§${g.clause.section} "${g.clause.quote}"`;
    case 'reading':
      return `reading ${g.assumption}`;
    default:
      return g satisfies never;
  }
}
