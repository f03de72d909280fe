/**
 * Replay tokens: everything needed to re-run one finding's counterexample against any target —
 * the property, fast-check's seed and shrink path, and the run count — as one copy-pasteable word.
 *
 * So that a token made by another version, or under other readings, never quietly replays another
 * case, a token also carries (all optional members of the same wire version 1: older tokens,
 * without them, still decode, and older decoders ignore them):
 * - `t`: the version of pouchproof that made it;
 * - `a` and `d`: the readings in force that differ from the registry's defaults, and a digest of
 *   all of them (defaults that change between versions change the digest too);
 * - `i`: a fingerprint of the case list the token picks from (token-fit.ts);
 * - `k`: a coverage case by its constraint id, side and variant (path `c`), not by its index.
 * Tokens made before `k` name a coverage case by its index (`c<index>`).
 */
import { isRecord, parseJson } from '../../spec/index.ts';
import { toolVersion } from './tool-version.ts';

/** A coverage case, named as the inventory names it. */
export interface CaseName {
  readonly constraint: string;
  readonly side: string;
  readonly variant: string;
}

export interface ReplayToken {
  readonly property: string;
  readonly seed: number;
  /** fast-check's path, `c` for a named coverage case, or `c<index>` (tokens made before cases were named). */
  readonly path: string;
  readonly runs: number;
  /** The version of pouchproof that made the token; absent in tokens made before tokens carried it. */
  readonly tool?: string;
  /** The coverage case a `c` path names. */
  readonly coverageCase?: CaseName;
  /** The readings in force when it was made: those that differ from the defaults, and a digest of all. */
  readonly readings?: { readonly differ: Readonly<Record<string, string>>; readonly digest: string };
  /** Fingerprint of the case list the token picks from (token-fit.ts). */
  readonly inventory?: string;
}

export class ReplayTokenError extends Error {}

interface Wire {
  v: 1;
  p: string;
  s: number;
  path: string;
  r: number;
  t?: string;
  k?: [string, string, string];
  a?: Record<string, string>;
  d?: string;
  i?: string;
}

/** A version as package.json spells one (it is printed back, so nothing else is let through). */
const VERSION = /^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/;
/** Names and values that are printed back in the one line a token that no longer fits gets. */
const WORD = /^[\x21-\x7e]{1,200}$/;
const DIGEST = /^[0-9a-f]{8,64}$/;

/** A token for `t`, stamped with this version of pouchproof unless `t` names another. */
export function encodeReplayToken(t: ReplayToken): string {
  const wire: Wire = {
    v: 1,
    p: t.property,
    s: t.seed,
    path: t.path,
    r: t.runs,
    t: t.tool ?? toolVersion(),
    ...(t.coverageCase ? { k: [t.coverageCase.constraint, t.coverageCase.side, t.coverageCase.variant] satisfies Wire['k'] } : {}),
    ...(t.readings ? { a: { ...t.readings.differ }, d: t.readings.digest } : {}),
    ...(t.inventory ? { i: t.inventory } : {}),
  };
  return Buffer.from(JSON.stringify(wire), 'utf8').toString('base64url');
}

/** The token, or why it cannot be read: what a caller that replays many says in one line instead of throwing. */
export function readReplayToken(raw: string): { readonly token: ReplayToken } | { readonly why: string } {
  try {
    return { token: decodeReplayToken(raw) };
  } catch (e) {
    if (e instanceof ReplayTokenError) return { why: e.message };
    throw e;
  }
}

export function decodeReplayToken(token: string): ReplayToken {
  const bad = (why: string): never => {
    throw new ReplayTokenError(`not a replay token (${why}); copy it from a finding in report.json or summary.md`);
  };
  if (!/^[A-Za-z0-9_-]+$/.test(token)) bad('unexpected characters');
  let wire: unknown;
  try {
    wire = parseJson(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return bad('does not decode');
  }
  if (typeof wire !== 'object' || wire === null) return bad('does not decode');
  // An array has no version: refused for it, as any object without one is.
  if (!isRecord(wire)) return bad('unknown version');
  const { v, p, s, path, r, t, i } = wire;
  if (v !== 1) return bad('unknown version');
  if (typeof p !== 'string' || p === '') return bad('no property');
  if (typeof s !== 'number' || !Number.isInteger(s)) return bad('no seed');
  if (typeof path !== 'string' || !/^(\d+(:\d+)*|c\d*)$/.test(path)) return bad('no path');
  if (typeof r !== 'number' || !Number.isInteger(r) || r < 1) return bad('no run count');
  if (t !== undefined && (typeof t !== 'string' || !VERSION.test(t))) return bad('bad version');
  const k = caseOf(wire['k'], bad);
  if (path === 'c' && !k) return bad('a coverage case without its name');
  const readings = readingsOf(wire['a'], wire['d'], bad);
  if (i !== undefined && (typeof i !== 'string' || !DIGEST.test(i))) return bad('bad inventory fingerprint');
  return {
    property: p,
    seed: s,
    path,
    runs: r,
    ...(typeof t === 'string' ? { tool: t } : {}),
    ...(k ? { coverageCase: k } : {}),
    ...(readings ? { readings } : {}),
    ...(typeof i === 'string' ? { inventory: i } : {}),
  };
}

function caseOf(k: unknown, bad: (why: string) => never): CaseName | undefined {
  if (k === undefined) return undefined;
  if (!Array.isArray(k) || k.length !== 3 || !k.every((x): x is string => typeof x === 'string' && WORD.test(x))) return bad('bad coverage case');
  const [constraint, side, variant] = k;
  return { constraint, side, variant };
}

function readingsOf(a: unknown, d: unknown, bad: (why: string) => never): ReplayToken['readings'] {
  if (a === undefined && d === undefined) return undefined;
  if (typeof d !== 'string' || !DIGEST.test(d) || !isRecord(a)) return bad('bad readings');
  const entries = Object.entries(a);
  const differ = entries.filter((e): e is [string, string] => WORD.test(e[0]) && typeof e[1] === 'string' && WORD.test(e[1]));
  if (differ.length !== entries.length) return bad('bad readings');
  // fromEntries defines each key as its own, as JSON.parse did (a `__proto__` stays a reading's name).
  return { differ: Object.fromEntries(differ), digest: d };
}
