/**
 * The JWS protected header, read strictly. Keys come only from enrolment, no JWS extension is
 * understood, and a header that two JSON parsers could read differently (duplicate members) is
 * refused, so the only header a verifier acts on is one with exactly one meaning.
 */
import { Base64UrlError, fromB64u } from './base64url.ts';
import { isRecord } from '../spec/index.ts';

export type HeaderResult = { ok: true; header: Readonly<Record<string, unknown>> } | { ok: false; reason: string };

/** The only algorithm accepted, compared case-sensitively (RFC 7515 section 4.1.1). */
export const ES256 = 'ES256';
/** Members that would bring their own key or certificate: refused outright. */
export const KEY_CARRYING_MEMBERS = ['jwk', 'jku', 'x5c', 'x5u'] as const;
/** Members naming extensions this verifier does not implement (RFC 7515 4.1.11, RFC 7797). */
export const EXTENSION_MEMBERS = ['crit', 'b64'] as const;
/** Longer protected headers are refused before decoding: no legitimate one comes near. */
export const MAX_HEADER_SEGMENT = 4096;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The first member name that occurs twice in one object of `text`, which must already be valid
 * JSON (names are compared after unescaping, so `"alg"` and `"\u0061lg"` are the same).
 */
export function duplicateMember(text: string): string | undefined {
  const stack: ({ names: Set<string>; expectName: boolean } | null)[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top?.expectName) {
        const name = String(JSON.parse(text.slice(i, j + 1)));
        if (top.names.has(name)) return name;
        top.names.add(name);
        top.expectName = false;
      }
      i = j;
    } else if (c === '{') stack.push({ names: new Set(), expectName: true });
    else if (c === '[') stack.push(null);
    else if (c === '}' || c === ']') stack.pop();
    else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top) top.expectName = true;
    }
  }
  return undefined;
}

/** Decodes and checks a protected header segment: base64url, UTF-8, one JSON object, alg ES256, no extensions, no keys. */
export function parseProtectedHeader(segment: string): HeaderResult {
  if (segment === '') return { ok: false, reason: 'empty protected header' };
  if (segment.length > MAX_HEADER_SEGMENT) return { ok: false, reason: 'protected header too long' };
  let text: string;
  try {
    text = utf8.decode(fromB64u(segment));
  } catch (e) {
    return { ok: false, reason: e instanceof Base64UrlError ? 'protected header is not base64url' : 'protected header is not UTF-8' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'protected header is not JSON' };
  }
  if (!isRecord(parsed)) return { ok: false, reason: 'protected header is not a JSON object' };
  const dup = duplicateMember(text);
  if (dup !== undefined) return { ok: false, reason: `duplicate "${dup.slice(0, 16)}" in protected header` };
  const header = parsed;
  if (!Object.hasOwn(header, 'alg')) return { ok: false, reason: 'alg missing' };
  if (header['alg'] !== ES256) return { ok: false, reason: 'alg is not ES256' };
  for (const m of EXTENSION_MEMBERS) if (Object.hasOwn(header, m)) return { ok: false, reason: `${m} not supported` };
  for (const m of KEY_CARRYING_MEMBERS) if (Object.hasOwn(header, m)) return { ok: false, reason: `${m} in header (keys come only from enrolment)` };
  return { ok: true, header };
}
