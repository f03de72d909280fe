/**
 * UUIDs of section 2.2, built from the model's version and variant digits. fast-check's own
 * `uuid()` covers versions and variants but not the case forms or nil/all-f on purpose, so the
 * forms are chosen explicitly here.
 */
import fc from 'fast-check';
import { UUID_GROUPS, UUID_MAX, UUID_NIL, UUID_VARIANTS, UUID_VERSIONS } from '../spec/index.ts';

export type CaseForm = 'lower' | 'upper' | 'mixed';

/** Lower-case variant digits (the model lists both cases; the case form is applied separately). */
export const VARIANT_DIGITS = [...new Set(UUID_VARIANTS.toLowerCase())].join('');
export const VERSION_DIGITS = UUID_VERSIONS;

/** Index of the version digit and of the variant digit in the 32 hex digits. */
export const VERSION_INDEX = UUID_GROUPS[0] + UUID_GROUPS[1];
export const VARIANT_INDEX = VERSION_INDEX + UUID_GROUPS[2];
const HEX_DIGITS = UUID_GROUPS.reduce((a, b) => a + b, 0);

/** Position in the hyphenated form of the `i`-th hex digit. */
export function hyphenatedIndex(i: number): number {
  let groups = 0;
  for (let acc = 0, g = 0; g < UUID_GROUPS.length && acc + UUID_GROUPS[g] <= i; g++) {
    acc += UUID_GROUPS[g];
    groups++;
  }
  return i + groups;
}
export const VERSION_AT = hyphenatedIndex(VERSION_INDEX);
export const VARIANT_AT = hyphenatedIndex(VARIANT_INDEX);

/** 32 hex digits → 8-4-4-4-12. Concatenated, not joined from an array: the suite draws ids by the hundred thousand. */
export function hyphenate(hex: string): string {
  let out = hex.slice(0, UUID_GROUPS[0]);
  let at = UUID_GROUPS[0];
  for (let g = 1; g < UUID_GROUPS.length; g++) {
    out += `-${hex.slice(at, at + UUID_GROUPS[g])}`;
    at += UUID_GROUPS[g];
  }
  return out;
}

export function caseForm(u: string): CaseForm {
  const upper = /[A-F]/.test(u);
  const lower = /[a-f]/.test(u);
  if (upper && lower) return 'mixed';
  return upper ? 'upper' : 'lower';
}

/** Applies a case form; `mixed` alternates letter case so the result really mixes both. */
export function applyCase(u: string, form: CaseForm): string {
  if (form === 'lower') return u.toLowerCase();
  if (form === 'upper') return u.toUpperCase();
  let flip = false;
  let out = '';
  for (const ch of u.toLowerCase()) {
    if (/[a-f]/.test(ch)) {
      out += flip ? ch.toUpperCase() : ch;
      flip = !flip;
    } else out += ch;
  }
  // A single letter cannot be mixed; upper-case it so the form still differs from lower.
  return /[A-F]/.test(out) ? out : out.toUpperCase();
}

/** A versioned UUID from 32 random hex digits, with the given version and variant digits. */
export function versioned(hex32: string, version: string, variant: string): string {
  return hyphenate(hex32.slice(0, VERSION_INDEX) + version + hex32.slice(VERSION_INDEX + 1, VARIANT_INDEX) + variant + hex32.slice(VARIANT_INDEX + 1));
}

const hex8 = (w: number): string => w.toString(16).padStart(8, '0');

const hex32: fc.Arbitrary<string> = fc.tuple(...Array.from({ length: HEX_DIGITS / 8 }, () => fc.integer({ min: 0, max: 0xffffffff }))).map((ws) => {
  let out = '';
  for (const w of ws) out += hex8(w);
  return out;
});

/** A versioned (non-nil, non-max) lower-case UUID. */
export const versionedUuid: fc.Arbitrary<string> = fc
  .record({ hex: hex32, version: fc.constantFrom(...VERSION_DIGITS), variant: fc.constantFrom(...VARIANT_DIGITS) })
  .map(({ hex, version, variant }) => versioned(hex, version, variant));

const caseFormArb: fc.Arbitrary<CaseForm> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<CaseForm>('lower') },
  { weight: 2, arbitrary: fc.constant<CaseForm>('upper') },
  { weight: 1, arbitrary: fc.constant<CaseForm>('mixed') },
);

/** Any valid UUID, biased to the edge forms: nil, all-f (both cases), upper and mixed case. */
export const edgeUuid: fc.Arbitrary<string> = fc.oneof(
  { weight: 12, arbitrary: fc.tuple(versionedUuid, caseFormArb).map(([u, f]) => applyCase(u, f)) },
  { weight: 1, arbitrary: fc.constantFrom(UUID_NIL, UUID_MAX, UUID_MAX.toUpperCase()) },
);

export function isNilOrMax(u: string): boolean {
  const l = u.toLowerCase();
  return l === UUID_NIL || l === UUID_MAX;
}
