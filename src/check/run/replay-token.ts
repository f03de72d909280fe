/**
 * Replay tokens: everything needed to re-run one finding's counterexample against any target —
 * the property, fast-check's seed and shrink path, and the run count — as one copy-pasteable word.
 * A coverage case (coverage.ts) has the path `c<index>`: its index among the property's enumerated cases.
 * A token carries the version of pouchproof that made it (`t`), an optional member of the
 * same wire version 1: older tokens, without it, still decode, and older decoders ignore it.
 */
import { toolVersion } from './tool-version.ts';

export interface ReplayToken {
  readonly property: string;
  readonly seed: number;
  readonly path: string;
  readonly runs: number;
  /** The version of pouchproof that made the token; absent in tokens made before tokens carried it. */
  readonly tool?: string;
}

export class ReplayTokenError extends Error {}

interface Wire {
  v: 1;
  p: string;
  s: number;
  path: string;
  r: number;
  t?: string;
}

/** A version as package.json spells one (it is printed back, so nothing else is let through). */
const VERSION = /^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/;

/** A token for `t`, stamped with this version of pouchproof unless `t` names another. */
export function encodeReplayToken(t: ReplayToken): string {
  const wire: Wire = { v: 1, p: t.property, s: t.seed, path: t.path, r: t.runs, t: t.tool ?? toolVersion() };
  return Buffer.from(JSON.stringify(wire), 'utf8').toString('base64url');
}

export function decodeReplayToken(token: string): ReplayToken {
  const bad = (why: string): never => {
    throw new ReplayTokenError(`not a replay token (${why}); copy it from a finding in report.json or summary.md`);
  };
  if (!/^[A-Za-z0-9_-]+$/.test(token)) bad('unexpected characters');
  let wire: unknown;
  try {
    wire = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return bad('does not decode');
  }
  if (typeof wire !== 'object' || wire === null) return bad('does not decode');
  const w = wire as Partial<Wire>;
  if (w.v !== 1) bad('unknown version');
  if (typeof w.p !== 'string' || w.p === '') bad('no property');
  if (typeof w.s !== 'number' || !Number.isInteger(w.s)) bad('no seed');
  if (typeof w.path !== 'string' || !/^(\d+(:\d+)*|c\d+)$/.test(w.path)) bad('no path');
  if (typeof w.r !== 'number' || !Number.isInteger(w.r) || w.r < 1) bad('no run count');
  if (w.t !== undefined && (typeof w.t !== 'string' || !VERSION.test(w.t))) bad('bad version');
  return { property: w.p!, seed: w.s!, path: w.path!, runs: w.r!, ...(w.t !== undefined ? { tool: w.t } : {}) };
}
