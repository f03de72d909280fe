/**
 * The words each signature attack's verdict rests on (issue 29 item 3). A verdict that fails a target
 * as a violation must rest on a sentence of SPEC.md or of a standard SPEC.md names: section 5 says
 * "JWS", which is RFC 7515, and "ES256", which is RFC 7518 section 3.4. A verdict that rests on no
 * such words is a case of a registry reading and fails a target only as an assumption finding.
 *
 * The RFC sentences are quoted as published; test/crypto/attack-grounds.test.ts checks the spec's
 * clauses against SPEC.md, that each standard is named by a word of the clause it is reached through,
 * and that docs/defects.md lists every attack with its ground.
 */
import { CLAUSES, assumptionOf, type AssumptionName, type ClauseName, type ReadingOf } from '../spec/index.ts';

/** A standard SPEC.md names, and the word of section 5 that names it. */
export const NAMED_STANDARDS = Object.freeze({ 'RFC 7515': 'JWS', 'RFC 7518': 'ES256' });
export type NamedStandard = keyof typeof NAMED_STANDARDS;

export type AttackGround =
  /** A sentence of SPEC.md: a named clause of src/spec/grounds.ts. */
  | { readonly kind: 'spec'; readonly clause: ClauseName }
  /** A sentence of a standard the clause `via` names (its word in `NAMED_STANDARDS`). */
  | { readonly kind: 'rfc'; readonly rfc: NamedStandard; readonly section: string; readonly words: string; readonly via: ClauseName }
  /** The meanings of the readings of a registry assumption: a finding against it is an `assumption` finding. */
  | { readonly kind: 'reading'; readonly assumption: AssumptionName };

const spec = (clause: ClauseName): AttackGround => Object.freeze({ kind: 'spec', clause });
const rfc = (r: NamedStandard, section: string, words: string): AttackGround => Object.freeze({ kind: 'rfc', rfc: r, section, words, via: 'signatureForm' });
export const reading = (assumption: AssumptionName): AttackGround => Object.freeze({ kind: 'reading', assumption });

/** The grounds the catalogue cites, each once. */
export const GROUNDS = Object.freeze({
  required: spec('signatureRequired'),
  form: spec('signatureForm'),
  base64url: rfc('RFC 7515', '2', 'Base64 encoding using the URL- and filename-safe character set defined in Section 5 of RFC 4648 [RFC4648], with all trailing \'=\' characters omitted (as permitted by Section 3.2) and without the inclusion of any line breaks, whitespace, or other additional characters.'),
  uniqueNames: rfc('RFC 7515', '4', 'The Header Parameter names within the JOSE Header MUST be unique; JWS parsers MUST either reject JWSs with duplicate Header Parameter names or use a JSON parser that returns only the lexically last duplicate member name, as specified in Section 15.12 ("The JSON Object") of ECMAScript 5.1 [ECMAScript].'),
  unknownIgnored: rfc('RFC 7515', '4', 'Unless listed as a critical Header Parameter, per Section 4.1.11, all Header Parameters not defined by this specification MUST be ignored when not understood.'),
  algCase: rfc('RFC 7515', '4.1.1', 'The "alg" value is a case-sensitive ASCII string containing a StringOrURI value.'),
  partyKey: rfc('RFC 7515', '4.1.1', 'The JWS Signature value is not valid if the "alg" value does not represent a supported algorithm or if there is not a key for use with that algorithm associated with the party that digitally signed or MACed the content.'),
  kidHint: rfc('RFC 7515', '4.1.4', 'The "kid" (key ID) Header Parameter is a hint indicating which key was used to secure the JWS.'),
  x5cValidated: rfc('RFC 7515', '4.1.6', 'The recipient MUST validate the certificate chain according to RFC 5280 [RFC5280] and consider the certificate or certificate chain to be invalid if any validation failure occurs.'),
  typIgnored: rfc('RFC 7515', '4.1.9', 'This parameter is ignored by JWS implementations; any processing of this parameter is performed by the JWS application.'),
  crit: rfc('RFC 7515', '4.1.11', 'If any of the listed extension Header Parameters are not understood and supported by the recipient, then the JWS is invalid.'),
  headerJson: rfc('RFC 7515', '5.2', 'Verify that the resulting octet sequence is a UTF-8-encoded representation of a completely valid JSON object conforming to RFC 7159 [RFC7159]; let the JWS Protected Header be this JSON object.'),
  signingInput: rfc('RFC 7515', '5.2', 'Validate the JWS Signature against the JWS Signing Input ASCII(BASE64URL(UTF8(JWS Protected Header)) || \'.\' || BASE64URL(JWS Payload)) in the manner defined for the algorithm being used, which MUST be accurately represented by the value of the "alg" (algorithm) Header Parameter, which MUST be present.'),
  sixtyFour: rfc('RFC 7518', '3.4', 'The JWS Signature value MUST be a 64-octet sequence. If it is not a 64-octet sequence, the validation has failed.'),
  validator: rfc('RFC 7518', '3.4', 'Submit the JWS Signing Input, R, S, and the public key (x, y) to the ECDSA P-256 SHA-256 validator.'),
});

/** The text of a ground, as docs/defects.md quotes it. */
export function groundText(g: AttackGround): string {
  switch (g.kind) {
    case 'spec':
      return `§${CLAUSES[g.clause].section} "${CLAUSES[g.clause].quote}"`;
    case 'rfc':
      return `${g.rfc} §${g.section} "${g.words}"`;
    case 'reading':
      return `reading ${g.assumption}`;
    default:
      return g satisfies never;
  }
}

/** What the audit reads of an attack (a `SignatureAttack` of attacks.ts, which imports this module). */
export interface Audited {
  readonly id: string;
  readonly expect: 'reject' | 'accept' | 'assumption';
  readonly assumption?: AssumptionName;
  readonly defaultVerdict?: 'reject' | 'accept';
  readonly verdictsUnder?: readonly { readonly value: ReadingOf<AssumptionName>; readonly verdict: 'reject' | 'accept' }[];
  readonly rests: readonly AttackGround[];
}

/** What an attack's verdict is, per reading where it depends on one: the audit's second column. */
export function verdictText(a: Audited): string {
  // Entries expecting 'assumption' are built by depends(), which always names one.
  const name = a.assumption;
  if (a.expect !== 'assumption' || name === undefined) return a.expect;
  const per = assumptionOf(name).choices.map((c, i) => {
    const v = i === 0 ? a.defaultVerdict : a.verdictsUnder?.find((x) => x.value === c.value)?.verdict;
    return `${c.value} ${v ?? 'not judged'}`;
  });
  return `reading-dependent: ${name} (${per.join('; ')})`;
}

/** The start of an attack's line in docs/defects.md: id, verdict, the words it rests on (table pipes escaped). */
export function auditRow(a: Audited): string {
  return `| \`${a.id}\` | ${verdictText(a)} | ${a.rests.map(groundText).join('; ').replaceAll('|', '\\|')} |`;
}
