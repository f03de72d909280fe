/**
 * A runnable `curl` command reproducing a request byte for byte, for reports. Secrets are masked,
 * so a masked command must have them filled in before it reproduces anything. Output is plain POSIX
 * sh: single-quoted arguments, and `printf` with octal escapes for bytes a quoted argument cannot
 * carry (NUL, control characters, invalid UTF-8).
 */
import type { Exchange, ExchangeRoute } from './client.ts';
import { MASK, redact, redactBytes } from './redact.ts';
import type { MaterialOrigin } from './tls.ts';

/** One shell word holding exactly `s`. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A printf format string that prints exactly these bytes. */
function printfFormat(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) {
    if (b === 0x25) out += '%%';
    else if (b === 0x5c) out += '\\\\';
    else if (b === 0x27) out += '\\047';
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\${b.toString(8).padStart(3, '0')}`;
  }
  return `'${out}'`;
}

function isPlainText(bytes: Uint8Array): boolean {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Round-tripping through UTF-8 detects invalid sequences.
  if (!Buffer.from(buf.toString('utf8'), 'utf8').equals(buf)) return false;
  for (const b of buf) if ((b < 0x20 && b !== 0x0a && b !== 0x09) || b === 0x7f) return false;
  // curl reads a file for an argument beginning with @.
  return buf[0] !== 0x40;
}

/** A header argument: a value with bytes beyond printable ASCII goes through printf. */
function headerArg(name: string, value: string): string {
  // `name:` would remove the header in curl; `name;` sends it empty.
  const line = value === '' ? `${name};` : `${name}: ${value}`;
  if (/^[\x20-\x7e\t]*$/.test(line)) return shellQuote(line);
  return `"$(printf ${printfFormat(new Uint8Array(Buffer.from(line, 'latin1')))})"`;
}

/** curl's own default headers, cleared unless the request sets them. */
const CURL_DEFAULTS = ['user-agent', 'accept', 'expect'];

/** The file a piece of TLS material is read from, and what to do first when the profile did not give one. */
function materialFile(field: string, origin: MaterialOrigin, placeholder: string): { readonly path: string; readonly note?: string } {
  switch (origin.kind) {
    case 'file':
      return { path: origin.path };
    case 'env':
      return { path: placeholder, note: `# ${field} came from the environment variable ${origin.name}: write it to ${placeholder} first` };
    case 'inline':
      return { path: placeholder, note: `# ${field} is given inline in the profile: write it to ${placeholder} first` };
    default:
      return origin satisfies never;
  }
}

/**
 * curl's options for the way the request went: the proxy, the profile's TLS block (files by their
 * paths, never their contents), and for a TLS name other than the URL's, the URL on that name
 * connected to the real host (`--connect-to`), with the Host the request carried.
 */
function routeArgs(route: CurlRoute | undefined, raw: string): { url: string; options: string[]; notes: string[]; host?: string } {
  const options: string[] = [];
  const notes: string[] = [];
  if (!route) return { url: raw, options, notes };
  if (route.proxy) options.push(`--proxy ${shellQuote(route.proxy.url)}`);
  const tls = route.tls;
  if (!tls) return { url: raw, options, notes };
  const pieces: Array<readonly [string, string, MaterialOrigin | undefined, string]> = [
    ['--cacert', 'tls.ca', tls.origins.ca, 'tls-ca.pem'],
    ['--cert', 'tls.cert', tls.origins.cert, 'tls-cert.pem'],
    ['--key', 'tls.key', tls.origins.key, 'tls-key.pem'],
  ];
  for (const [flag, field, origin, placeholder] of pieces) {
    if (!origin) continue;
    const f = materialFile(field, origin, placeholder);
    options.push(`${flag} ${shellQuote(f.path)}`);
    if (f.note) notes.push(f.note);
  }
  if (tls.passphrase) options.push(`--pass ${shellQuote(MASK)}`);
  if (tls.minVersion) options.push(tls.minVersion === 'TLSv1.3' ? '--tlsv1.3' : '--tlsv1.2');
  // Only the origin is read: the path stays byte for byte as sent (URL parsing would resolve its dot segments).
  const origin = new URL(raw);
  if (!tls.servername || tls.servername === origin.hostname) return { url: raw, options, notes };
  const port = origin.port || '443';
  options.push(`--connect-to ${shellQuote(`${tls.servername}:${port}:${origin.hostname}:${port}`)}`);
  return { url: raw.replace(/^https:\/\/[^/]+/i, `https://${tls.servername}${origin.port ? `:${origin.port}` : ''}`), options, notes, host: origin.host };
}

/** Options of `toCurl`. */
export interface CurlOptions {
  /**
   * Bodies over this many bytes are not written into the command (a 35 MB commit would make a 35 MB
   * line, and a report keeps every finding's lines): the command reads the body from a file and says so.
   */
  readonly maxBodyBytes?: number;
}

/** The way a request went, as far as its curl line says it: the proxy's URL, and the TLS block (a live exchange's `ExchangeRoute` is one). */
export interface CurlRoute {
  readonly proxy?: { readonly url: string };
  readonly tls?: ExchangeRoute['tls'];
}

/**
 * A request as a curl line needs it, from a live exchange (`requestOf`) or from one a finding
 * recorded, its secrets masked already (`masked` then says whether masking changed anything).
 */
export interface CurlRequest {
  readonly id: number;
  readonly endpoint: string;
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The body's bytes: all of them, or only the start a record kept (`bodyCut`). */
  readonly body: Uint8Array;
  /** The body's size when it was sent. */
  readonly size: number;
  /** A record kept only the start of the body. */
  readonly bodyCut?: boolean;
  readonly route?: CurlRoute;
  /** For a recorded request: its secrets were masked when it was recorded, here when true. */
  readonly masked?: boolean;
}

/** A live exchange's request as curl needs it. */
function requestOf(ex: Exchange): CurlRequest {
  const r = ex.request;
  return { id: ex.id, endpoint: ex.endpoint, method: r.method, url: r.url, headers: r.headers, body: r.body, size: r.body.byteLength, ...(ex.route ? { route: ex.route } : {}) };
}

/** The body argument: inline, through printf, or (over the bound, or cut in a record) from a file the note names. */
function bodyArgs(ex: CurlRequest, secrets: readonly string[], o: CurlOptions): { readonly arg: string; readonly pipe: string; readonly note: string; readonly masked: boolean } {
  const size = ex.size;
  if ((o.maxBodyBytes !== undefined && size > o.maxBodyBytes) || ex.bodyCut === true) {
    const file = `body-${ex.id}.bin`;
    const note = `# the ${size}-byte request body is not written here (${o.maxBodyBytes !== undefined && size > o.maxBodyBytes ? `over ${o.maxBodyBytes} bytes` : 'only its start was kept'}): write it to ${file} first; its start is in the finding's exchanges, and \`pouchproof replay\` sends the whole case again\n`;
    return { arg: `--data-binary @${file}`, pipe: '', note, masked: false };
  }
  const body = redactBytes(ex.body, secrets);
  const masked = body !== ex.body;
  if (isPlainText(body)) return { arg: `--data-binary ${shellQuote(Buffer.from(body).toString('utf8'))}`, pipe: '', note: '', masked };
  return { arg: '--data-binary @-', pipe: `printf ${printfFormat(body)} | `, note: '', masked };
}

export function toCurl(ex: Exchange, secrets: readonly string[], opts: CurlOptions = {}): string {
  return curlOf(requestOf(ex), secrets, opts);
}

/** The curl line of a request, live or recorded; `secrets` still to mask (none for a recorded one, masked already). */
export function curlOf(ex: CurlRequest, secrets: readonly string[], opts: CurlOptions = {}): string {
  const { method, url, headers } = ex;
  const body = bodyArgs(ex, secrets, opts);
  let masked = body.masked || ex.masked === true;
  const args: string[] = ['curl', '-sS', '-i', '--http1.1', '-X', shellQuote(method)];
  const route = routeArgs(ex.route, url);
  const shownUrl = redact(route.url, secrets);
  masked ||= shownUrl !== route.url || ex.route?.tls?.passphrase === true;
  args.push(shellQuote(shownUrl));
  const lines: string[] = [];
  for (const o of route.options) {
    const shown = redact(o, secrets);
    masked ||= shown !== o;
    lines.push(shown);
  }
  if (route.host !== undefined && !('host' in headers)) lines.push(`-H ${shellQuote(`host: ${route.host}`)}`);
  for (const [name, raw] of Object.entries(headers)) {
    if (name === 'content-length' && raw === String(ex.size)) continue; // curl computes it
    const value = redact(raw, secrets);
    masked ||= value !== raw;
    lines.push(`-H ${headerArg(name, value)}`);
  }
  for (const d of CURL_DEFAULTS) if (!(d in headers)) lines.push(`-H ${shellQuote(`${d}:`)}`);
  if (!('content-type' in headers)) lines.push(`-H ${shellQuote('content-type:')}`);
  lines.push(body.arg);
  const comment = masked ? `# exchange #${ex.id} (${ex.endpoint}); values shown as ${MASK} are secrets from the profile: fill them in to run\n` : '';
  const notes = route.notes.map((n) => `${n}\n`).join('') + body.note;
  return `${comment}${notes}${body.pipe}${args.join(' ')} \\\n  ${lines.join(' \\\n  ')}`;
}
