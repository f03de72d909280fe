/**
 * The target profile: where the service under test lives, how each member kind authenticates, and
 * which readings of the spec's "not shown" apply. Every problem becomes one line naming the field
 * (`accounts.primary.device.privateJwk: …`); no secret value ever appears in a message.
 */
import type { KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { privateKeyFromJwk } from '../crypto/index.ts';
import {
  API_PREFIX,
  PATTERNS,
  RESPONSE_BODY_BOUND_BYTES,
  resolveAssumptions,
  toZod,
  uuid,
  type AssumptionSet,
  type MemberKind,
  errorCode,
  errorMessage,
  parseJson,
} from '../spec/index.ts';
import { BAD_HEADER_VALUE, CommandCredential, isCommandRef, type CommandRef } from './credential-command.ts';
import { findJsonSyntaxError } from './json-syntax.ts';
import { FieldError } from './field-error.ts';
import { parseNemesis, type NemesisPlan } from './nemesis/grammar.ts';
import { parseProxyUrl, proxyFor, proxySecrets, type ProxyRoute } from './proxy.ts';
import { redact } from './redact.ts';
import { readSecretText, resolveSecretString, type SecretRef, type SecretSource } from './secret-ref.ts';
import { TLS_MIN_VERSIONS, checkClientIdentity, pemCertificates, type MaterialOrigin, type TlsSettings } from './tls.ts';

export interface Identity {
  kind: MemberKind;
  headers: Readonly<Record<string, string>>;
  memberId?: string;
  deviceId?: string;
  privateKey?: KeyObject;
}
export interface Account {
  browser?: Identity;
  device?: Identity;
  /**
   * Other browser members of the account, each with its own session's headers, that a run may revoke
   * (4.5 "ends its sessions" is seen through them). Revoked, one serves no later run.
   */
  revocableBrowsers?: readonly Identity[];
}
export interface Profile {
  name: string;
  baseUrl: string;
  accounts: { primary: Account; secondary?: Account };
  pouchIds: readonly string[];
  browserIds: readonly string[];
  cliRequestIds: readonly string[];
  timeouts: { requestMs: number; connectMs: number };
  /** What pouchproof reads of one response at most (the rest is a transport finding). */
  limits: { responseBytes: number };
  /** Connections of the load engine's closed model (`connections` in the file; default 16). */
  connections: number;
  /**
   * Conformance cases in flight at once, each on its own connection: `connections` when the file
   * gives it, else DEFAULT_CASE_CONCURRENCY, enough to hide a 30–100 ms link's latency behind the
   * target's own work (bench/latency.bench.ts). `--concurrency` lowers it per run.
   */
  caseConcurrency: number;
  /**
   * Sent on every request of every client (e.g. a routing header a gateway requires); an identity's
   * own header of the same name wins. Values are secrets.
   */
  headers: Readonly<Record<string, string>>;
  /** TLS settings for an https target; undefined: Node's defaults (bundled roots, NODE_EXTRA_CA_CERTS). */
  tls: TlsSettings | undefined;
  /** The HTTP proxy requests go through (the profile's, or the environment's), or undefined. */
  proxy: ProxyRoute | undefined;
  assumptions: AssumptionSet;
  /**
   * Whether properties may change the account's master password (4.6) with placeholder statements.
   * Off unless the profile opts in: on a real server that could lock the account out.
   */
  allowAccountChanges: boolean;
  /**
   * Every secret value, for redaction. A live list: a command's credential adds each value it yields
   * when it yields it, so code that holds the list masks the values a refresh brings too.
   */
  secrets: readonly string[];
  /** The header values that come from a command (`{ "command": … }`), refreshed on their `refreshOn` statuses. */
  credentials?: readonly CommandCredential[];
  /** Faults injected on pouchproof's side of the wire, and the retry policy under them (docs/nemesis.md); absent: a clean wire. */
  nemesis?: NemesisPlan;
  /**
   * Where a nemesis for this profile already listens (on loopback): set at run time by a load run,
   * whose nemesis lives in the main thread while its workers' connections go through it.
   */
  nemesisPort?: number;
}

export class ProfileError extends Error {
  constructor(
    message: string,
    /** The field at fault, as a dotted path, when there is one. */
    readonly field?: string,
  ) {
    super(message.replace(/[\r\n]+/g, ' '));
    this.name = 'ProfileError';
  }
}

export const DEFAULT_TIMEOUTS = Object.freeze({ requestMs: 10_000, connectMs: 3_000 });
export const DEFAULT_CONNECTIONS = 16;
/**
 * Conformance cases in flight when the profile names no `connections`: at a 30 ms round trip the
 * reference serves ~550 requests/s, so ~17 requests are in flight on the wire alone; 48 keeps the
 * run within 2x its loopback time (bench/latency.bench.ts: 1.45x at 48, 2.2-2.7x at 16).
 */
export const DEFAULT_CASE_CONCURRENCY = 48;
/** The response bound derived from the spec model (src/spec/response-size.ts). */
export const DEFAULT_LIMITS = Object.freeze({ responseBytes: RESPONSE_BODY_BOUND_BYTES });
const MAX_TIMEOUT_MS = 600_000;
/** Below this a valid answer of the spec could be cut; above it a body is no answer a client needs. */
const MIN_RESPONSE_BYTES = 1024;
const MAX_RESPONSE_BYTES = 1024 * 1024 * 1024;
const MAX_CONNECTIONS = 1024;

// ---------------------------------------------------------------------------------------------
// The file's schema
// ---------------------------------------------------------------------------------------------

/** The spec's own UUID rule (2.2); its failures carry constraint kinds, translated in `describe`. */
const UuidSchema = toZod(uuid());

const EnvRef = z.strictObject({ env: z.string().min(1) });
const FileRef = z.strictObject({ file: z.string().min(1) });
const SecretString = z.union([z.string(), EnvRef, FileRef], {
  error: 'expected a string, {"env": "VAR"} or {"file": "path"}',
});
const JwkRef = z.union([EnvRef, FileRef, z.looseObject({ kty: z.string() })], {
  error: 'expected a private JWK object (with "kty"), {"env": "VAR"} or {"file": "path"}',
});

/** A header value from a command (credential-command.ts): its argv, run without a shell. */
const CommandFile = z.strictObject({
  command: z.array(z.string().min(1), { error: 'expected the command as an array of strings: ["program", "arg", …]' }).min(1),
  refreshOn: z.array(z.number().int().min(100).max(599)).optional(),
  prefix: z.string().optional(),
  timeoutMs: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional(),
});
const HeaderValue = z.union([z.string(), EnvRef, FileRef, CommandFile], {
  error: 'expected a string, {"env": "VAR"}, {"file": "path"} or {"command": ["program", "arg", …]}',
});

/** RFC 9110 token: what an HTTP field name may be made of. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HeaderMap = z.record(z.string().regex(HEADER_NAME, 'not a valid HTTP header name'), HeaderValue);

const BrowserFile = z.strictObject({
  headers: HeaderMap.optional(),
  memberId: UuidSchema.optional(),
});
const DeviceFile = z.strictObject({
  headers: HeaderMap.optional(),
  deviceId: UuidSchema,
  memberId: UuidSchema.optional(),
  privateJwk: JwkRef,
});
/** A browser member a run may revoke, with its session: the member id is what 4.5 is sent. */
const RevocableBrowserFile = z.strictObject({ headers: HeaderMap, memberId: UuidSchema });
const AccountFile = z.strictObject({ browser: BrowserFile.optional(), device: DeviceFile.optional(), revocableBrowsers: z.array(RevocableBrowserFile).max(64).optional() });

const timeoutMs = z.number().int().min(1).max(MAX_TIMEOUT_MS);

/**
 * Headers the clients write themselves, or that frame the message: a profile-wide value would be
 * overwritten or would break the request. Proxy credentials belong in the proxy URL.
 */
const RESERVED_PROFILE_HEADERS: Readonly<Record<string, string>> = {
  host: 'pouchproof sends the base URL\'s host (use tls.servername for another TLS name)',
  'content-length': 'pouchproof frames every request itself',
  'content-type': 'pouchproof sends application/json itself',
  'transfer-encoding': 'pouchproof frames every request itself',
  connection: 'pouchproof manages its connections itself',
  'keep-alive': 'pouchproof manages its connections itself',
  upgrade: 'pouchproof speaks HTTP/1.1 only',
  te: 'pouchproof frames every request itself',
  trailer: 'pouchproof frames every request itself',
  expect: 'pouchproof sends bodies at once',
  'service-signature': 'pouchproof signs commits itself (section 5)',
  'proxy-authorization': 'put the proxy\'s credentials in the proxy URL (http://user:password@host:port)',
};

/** A TLS name: a DNS name (no port, no scheme). */
const SERVERNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

const TlsFile = z.strictObject({
  ca: SecretString.optional(),
  cert: SecretString.optional(),
  key: SecretString.optional(),
  passphrase: SecretString.optional(),
  servername: z.string().regex(SERVERNAME, 'expected a DNS name (no scheme, port or IP address)').optional(),
  minVersion: z.enum(TLS_MIN_VERSIONS, { error: `expected ${TLS_MIN_VERSIONS.join(' or ')}` }).optional(),
});

/** Why a base URL is unusable, or undefined. */
function baseUrlProblem(s: string): string | undefined {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return 'not an absolute URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `scheme must be http or https, not ${u.protocol.replace(/:$/, '')}`;
  if (u.username || u.password) return 'must not contain credentials; put them in accounts';
  if (u.search || s.includes('?')) return 'must not contain a query';
  if (u.hash || s.includes('#')) return 'must not contain a fragment';
  const prefix = u.pathname.replace(/\/+$/, '');
  if (prefix === API_PREFIX || prefix.endsWith(API_PREFIX)) {
    return `must not end with ${API_PREFIX}: every endpoint path already begins with it`;
  }
  return undefined;
}

const BaseUrl = z.string().superRefine((s, ctx) => {
  const problem = baseUrlProblem(s);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** The profile file as written (the reference server's generated profile must satisfy it). */
export const ProfileFileSchema = z.strictObject({
  $schema: z.string().optional(),
  description: z.string().optional(),
  name: z.string().min(1).max(200).optional(),
  baseUrl: BaseUrl,
  accounts: z.strictObject({ primary: AccountFile, secondary: AccountFile.optional() }).optional(),
  pouchIds: z.array(UuidSchema).optional(),
  browserIds: z.array(UuidSchema).optional(),
  cliRequestIds: z.array(UuidSchema).optional(),
  timeouts: z.strictObject({ requestMs: timeoutMs.optional(), connectMs: timeoutMs.optional() }).optional(),
  limits: z.strictObject({ responseBytes: z.number().int().min(MIN_RESPONSE_BYTES).max(MAX_RESPONSE_BYTES).optional() }).optional(),
  connections: z.number().int().min(1).max(MAX_CONNECTIONS).optional(),
  headers: HeaderMap.optional(),
  tls: TlsFile.optional(),
  proxy: SecretString.optional(),
  assumptions: z.record(z.string(), z.string()).optional(),
  allowAccountChanges: z.boolean().optional(),
  nemesis: z.string().superRefine((s, ctx) => {
    try {
      parseNemesis(s);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: errorMessage(e) });
    }
  }).optional(),
});

/** A profile file as written. */
export type ProfileFile = z.input<typeof ProfileFileSchema>;
type ParsedFile = z.output<typeof ProfileFileSchema>;
type AccountIn = z.output<typeof AccountFile>;

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------

function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out === '' ? String(seg) : `.${String(seg)}`;
  return out;
}

/** The spec schemas speak in constraint kinds; say them as sentences. */
const KIND_WORDS: Readonly<Record<string, string>> = {
  uuid: `not a UUID (${PATTERNS.uuid.text}, section 2.2)`,
  required: 'required',
  'not-null': 'must not be null',
  type: 'expected a string',
};

const errorMap: z.core.$ZodErrorMap = (iss) => {
  if (iss.code === 'invalid_type') {
    if (iss.input === undefined) return 'required';
    const got = iss.input === null ? 'null' : Array.isArray(iss.input) ? 'array' : typeof iss.input;
    return `expected ${iss.expected === 'int' ? 'an integer' : iss.expected}, got ${got}`;
  }
  if (iss.code === 'too_small' || iss.code === 'too_big') {
    const bound = iss.code === 'too_small' ? `at least ${iss.minimum}` : `at most ${iss.maximum}`;
    const unit = iss.origin === 'string' ? ' characters' : iss.origin === 'array' ? ' items' : '';
    return `must be ${bound}${unit}`;
  }
  return undefined;
};

function describe(issue: z.core.$ZodIssue): string[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((k) => `${fieldPath([...issue.path, k])}: unknown field`);
  }
  const where = fieldPath(issue.path) || '(profile)';
  if (issue.code === 'invalid_key') {
    const inner = issue.issues[0]?.message ?? 'invalid key';
    return [`${where}: ${inner}`];
  }
  return [`${where}: ${KIND_WORDS[issue.message] ?? issue.message}`];
}

function fail(field: string, problem: string): never {
  throw new ProfileError(`${field}: ${problem}`, field);
}

// ---------------------------------------------------------------------------------------------
// Resolution
// ---------------------------------------------------------------------------------------------

/** The profile's secrets as they are met, and the command credentials that add theirs later. */
class SecretCollector {
  private readonly set = new Set<string>();
  /** The live list the profile hands out (see `Profile.secrets`). */
  private readonly all: string[] = [];
  readonly credentials: CommandCredential[] = [];
  add(s: string | undefined): void {
    if (s !== undefined && s !== '' && !this.set.has(s)) {
      this.set.add(s);
      this.all.push(s);
    }
  }
  /** A header value, and its credential part when it is "<scheme> <credentials>". */
  addHeaderValue(v: string): void {
    this.add(v);
    const m = /^[A-Za-z][\w.+-]*[ \t]+(\S.*)$/.exec(v);
    if (m) this.add(m[1]);
  }
  list(): readonly string[] {
    return this.all;
  }
}

type HeaderRef = SecretRef | CommandRef;

function resolveHeaders(
  headers: Record<string, HeaderRef> | undefined,
  field: string,
  src: SecretSource,
  secrets: SecretCollector,
): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, ref] of Object.entries(headers ?? {})) {
    const f = `${field}.${name}`;
    const key = name.toLowerCase();
    if (key in out) fail(f, `header ${key} is given twice (names are case-insensitive)`);
    if (isCommandRef(ref)) {
      const credential = new CommandCredential(f, key, ref, src, (v) => secrets.addHeaderValue(v));
      secrets.credentials.push(credential);
      // A getter: the object stays frozen, and every request built after a refresh sends the new value.
      Object.defineProperty(out, key, { get: () => credential.value, enumerable: true });
      continue;
    }
    const value = resolveSecretString(ref, f, src);
    // Every credential header value is treated as a secret, inline ones too.
    secrets.addHeaderValue(value);
    if (BAD_HEADER_VALUE.test(value)) fail(f, 'value contains a control character, a line break or a character beyond U+00FF');
    out[key] = value;
  }
  return Object.freeze(out);
}

function resolveJwk(ref: z.infer<typeof JwkRef>, field: string, src: SecretSource, secrets: SecretCollector): KeyObject {
  let jwk: unknown = ref;
  // The schema's union: an inline JWK has kty, a reference has env or file (strict objects, so never both).
  if (!('kty' in ref)) {
    const text = readSecretText(ref, field, src);
    secrets.add(text);
    secrets.add(text.trim());
    try {
      jwk = JSON.parse(text);
    } catch {
      const what = 'env' in ref ? `environment variable ${ref.env}` : `file ${JSON.stringify(ref.file)}`;
      fail(field, `${what} does not hold a JSON object`);
    }
  }
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) fail(field, 'expected a JWK object');
  const d = 'd' in jwk ? jwk.d : undefined;
  if (typeof d === 'string') secrets.add(d);
  secrets.add(JSON.stringify(jwk));
  secrets.add(JSON.stringify(jwk, null, 2));
  try {
    return privateKeyFromJwk(jwk);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    fail(field, redact(msg, secrets.list()).replace(/[\r\n]+/g, ' '));
  }
}

function resolveAccount(a: AccountIn, field: string, src: SecretSource, secrets: SecretCollector): Account {
  const out: Account = {};
  if (a.browser) {
    const b = a.browser;
    out.browser = Object.freeze({
      kind: 'browser' as const,
      headers: resolveHeaders(b.headers, `${field}.browser.headers`, src, secrets),
      ...(b.memberId !== undefined ? { memberId: b.memberId } : {}),
    });
  }
  if (a.device) {
    const d = a.device;
    const headers = resolveHeaders(d.headers, `${field}.device.headers`, src, secrets);
    const privateKey = resolveJwk(d.privateJwk, `${field}.device.privateJwk`, src, secrets);
    out.device = Object.freeze({
      kind: 'device' as const,
      headers,
      deviceId: d.deviceId,
      ...(d.memberId !== undefined ? { memberId: d.memberId } : {}),
      privateKey,
    });
  }
  if (a.revocableBrowsers?.length) {
    out.revocableBrowsers = Object.freeze(
      a.revocableBrowsers.map((b, i) => Object.freeze({ kind: 'browser' as const, headers: resolveHeaders(b.headers, `${field}.revocableBrowsers[${i}].headers`, src, secrets), memberId: b.memberId })),
    );
  }
  return Object.freeze(out);
}

function resolveAssumptionOverrides(overrides: Record<string, string> | undefined): AssumptionSet {
  for (const [name, value] of Object.entries(overrides ?? {})) {
    try {
      resolveAssumptions({ [name]: value });
    } catch (e) {
      fail(`assumptions.${name}`, e instanceof Error ? e.message : String(e));
    }
  }
  return resolveAssumptions(overrides ?? {});
}

/** `http://host:port/prefix/` → `http://host:port/prefix`. */
export function normaliseBaseUrl(s: string, field = 'baseUrl'): string {
  const problem = baseUrlProblem(s);
  if (problem) fail(field, problem);
  const u = new URL(s);
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
}

/** The profile-wide headers: credentials-like values like any other header, minus the ones pouchproof writes itself. */
function resolveProfileHeaders(headers: Record<string, HeaderRef> | undefined, src: SecretSource, secrets: SecretCollector): Readonly<Record<string, string>> {
  for (const name of Object.keys(headers ?? {})) {
    const why = RESERVED_PROFILE_HEADERS[name.toLowerCase()];
    if (why) fail(`headers.${name}`, `not allowed as a profile-wide header: ${why}`);
  }
  return resolveHeaders(headers, 'headers', src, secrets);
}

function originOf(ref: SecretRef, src: SecretSource): MaterialOrigin {
  if (typeof ref === 'string') return { kind: 'inline' };
  if ('env' in ref) return { kind: 'env', name: ref.env };
  return { kind: 'file', path: isAbsolute(ref.file) ? ref.file : resolve(src.baseDir, ref.file) };
}

type TlsIn = NonNullable<ParsedFile['tls']>;

/** The `tls` block: every piece read and checked now, so a bad one is one line naming its field before anything is sent. */
function resolveTls(t: TlsIn | undefined, baseUrl: string, src: SecretSource, secrets: SecretCollector): TlsSettings | undefined {
  if (!t) return undefined;
  if (new URL(baseUrl).protocol !== 'https:') fail('tls', 'the base URL is http: a tls block applies only to an https target');
  if ((t.cert === undefined) !== (t.key === undefined)) fail(t.cert === undefined ? 'tls.cert' : 'tls.key', 'a client certificate needs both tls.cert and tls.key');
  if (t.passphrase !== undefined && t.key === undefined) fail('tls.passphrase', 'there is no tls.key to decrypt');
  const read = (ref: SecretRef | undefined, field: string): string | undefined => (ref === undefined ? undefined : resolveSecretString(ref, field, src));
  const key = read(t.key, 'tls.key');
  const passphrase = read(t.passphrase, 'tls.passphrase');
  // The key and its passphrase are secrets; certificates are public (the server sees them in every handshake).
  secrets.add(key);
  secrets.add(key?.trim());
  secrets.add(passphrase);
  const ca = read(t.ca, 'tls.ca');
  const cert = read(t.cert, 'tls.cert');
  if (ca !== undefined) pemCertificates(ca, 'tls.ca');
  if (cert !== undefined && key !== undefined) checkClientIdentity(cert, key, passphrase);
  const origins: { ca?: MaterialOrigin; cert?: MaterialOrigin; key?: MaterialOrigin } = {};
  if (t.ca !== undefined) origins.ca = originOf(t.ca, src);
  if (t.cert !== undefined) origins.cert = originOf(t.cert, src);
  if (t.key !== undefined) origins.key = originOf(t.key, src);
  return Object.freeze({
    ...(ca !== undefined ? { ca } : {}),
    ...(cert !== undefined ? { cert } : {}),
    ...(key !== undefined ? { key } : {}),
    ...(passphrase !== undefined ? { passphrase } : {}),
    ...(t.servername !== undefined ? { servername: t.servername.replace(/\.$/, '') } : {}),
    ...(t.minVersion !== undefined ? { minVersion: t.minVersion } : {}),
    origins: Object.freeze(origins),
  });
}

function resolveProxy(ref: SecretRef | undefined, baseUrl: string, src: SecretSource, secrets: SecretCollector): ProxyRoute | undefined {
  // Checked and masked even when no_proxy or a loopback target leaves it unused: it is still the profile's secret.
  const configured = ref === undefined ? undefined : parseProxyUrl(resolveSecretString(ref, 'proxy', src), 'proxy').href;
  if (configured !== undefined) for (const s of proxySecrets(configured)) secrets.add(s);
  const route = proxyFor(baseUrl, configured, src.env);
  if (route) for (const s of proxySecrets(route.url)) secrets.add(s);
  return route ? Object.freeze(route) : undefined;
}

function buildProfile(file: ParsedFile, src: SecretSource): Profile {
  const secrets = new SecretCollector();
  const baseUrl = normaliseBaseUrl(file.baseUrl);
  let accounts: Profile['accounts'];
  let headers: Profile['headers'];
  let tls: Profile['tls'];
  let proxy: Profile['proxy'];
  try {
    const primary = file.accounts ? resolveAccount(file.accounts.primary, 'accounts.primary', src, secrets) : Object.freeze({});
    const secondary = file.accounts?.secondary
      ? resolveAccount(file.accounts.secondary, 'accounts.secondary', src, secrets)
      : undefined;
    accounts = Object.freeze(secondary ? { primary, secondary } : { primary });
    headers = resolveProfileHeaders(file.headers, src, secrets);
    tls = resolveTls(file.tls, baseUrl, src, secrets);
    proxy = resolveProxy(file.proxy, baseUrl, src, secrets);
    if (proxy && file.nemesis !== undefined) throw new FieldError('nemesis', 'the nemesis holds the connections to the target itself: it cannot go through a proxy (leave out proxy, or set no_proxy for the target)');
  } catch (e) {
    if (e instanceof FieldError) throw new ProfileError(e.message, e.field);
    throw e;
  }
  return Object.freeze({
    name: file.name ?? new URL(baseUrl).host,
    baseUrl,
    accounts,
    pouchIds: Object.freeze([...(file.pouchIds ?? [])]),
    browserIds: Object.freeze([...(file.browserIds ?? [])]),
    cliRequestIds: Object.freeze([...(file.cliRequestIds ?? [])]),
    timeouts: Object.freeze({
      requestMs: file.timeouts?.requestMs ?? DEFAULT_TIMEOUTS.requestMs,
      connectMs: file.timeouts?.connectMs ?? DEFAULT_TIMEOUTS.connectMs,
    }),
    limits: Object.freeze({ responseBytes: file.limits?.responseBytes ?? DEFAULT_LIMITS.responseBytes }),
    connections: file.connections ?? DEFAULT_CONNECTIONS,
    caseConcurrency: file.connections ?? DEFAULT_CASE_CONCURRENCY,
    headers,
    tls,
    proxy,
    assumptions: resolveAssumptionOverrides(file.assumptions),
    allowAccountChanges: file.allowAccountChanges ?? false,
    secrets: secrets.list(),
    ...(secrets.credentials.length ? { credentials: Object.freeze([...secrets.credentials]) } : {}),
    ...(file.nemesis !== undefined ? { nemesis: parseNemesis(file.nemesis) } : {}),
  });
}

/** A secret reference of a profile file, with the field that holds it. */
export type ProfileRef = { readonly field: string } & ({ readonly file: string } | { readonly env: string } | { readonly command: readonly string[] });

/**
 * Every `{ "file": … }`, `{ "env": … }` and `{ "command": … }` reference of a valid profile file,
 * without reading or running them (what `load k8s` must mount from a Secret for the profile to work
 * inside a pod, or refuse).
 */
export function profileRefs(json: unknown): ProfileRef[] {
  const r = ProfileFileSchema.safeParse(json);
  if (!r.success) return [];
  const out: ProfileRef[] = [];
  const ref = (field: string, v: unknown): void => {
    if (typeof v !== 'object' || v === null || 'kty' in v) return;
    if ('file' in v && typeof v.file === 'string') out.push({ field, file: v.file });
    else if ('env' in v && typeof v.env === 'string') out.push({ field, env: v.env });
    else if (isCommandRef(v)) out.push({ field, command: v.command });
  };
  const headers = (field: string, h: Record<string, unknown> | undefined): void => {
    for (const [name, v] of Object.entries(h ?? {})) ref(`${field}.${name}`, v);
  };
  const f = r.data;
  for (const [name, account] of Object.entries(f.accounts ?? {})) {
    if (!account) continue;
    headers(`accounts.${name}.browser.headers`, account.browser?.headers);
    headers(`accounts.${name}.device.headers`, account.device?.headers);
    ref(`accounts.${name}.device.privateJwk`, account.device?.privateJwk);
  }
  headers('headers', f.headers);
  for (const [name, v] of Object.entries(f.tls ?? {})) ref(`tls.${name}`, v);
  ref('proxy', f.proxy);
  return out;
}

/** Every problem of a profile file, one line each; empty when it is valid (secrets are not resolved). */
export function profileFileIssues(json: unknown): string[] {
  const r = ProfileFileSchema.safeParse(json, { error: errorMap });
  return r.success ? [] : r.error.issues.flatMap(describe);
}

export function parseProfile(json: unknown, opts: { baseDir?: string; env?: NodeJS.ProcessEnv } = {}): Profile {
  const r = ProfileFileSchema.safeParse(json, { error: errorMap });
  if (!r.success) {
    const lines = r.error.issues.flatMap(describe);
    const first = lines[0] ?? '(profile): invalid';
    const more = lines.length > 1 ? ` (and ${lines.length - 1} more: ${lines.slice(1, 4).join('; ')}${lines.length > 4 ? '; …' : ''})` : '';
    throw new ProfileError(first + more, first.slice(0, first.indexOf(': ')));
  }
  return buildProfile(r.data, { baseDir: opts.baseDir ?? process.cwd(), env: opts.env ?? process.env });
}

export async function loadProfile(path: string, env: NodeJS.ProcessEnv = process.env): Promise<Profile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new ProfileError(`cannot read profile ${JSON.stringify(path)} (${errorCode(e) ?? 'unreadable'})`);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const syntax = findJsonSyntaxError(text);
  if (syntax) {
    throw new ProfileError(`${path}: invalid JSON at line ${syntax.line}, column ${syntax.column}: ${syntax.problem}`);
  }
  return parseProfile(parseJson(text), { baseDir: dirname(path), env });
}

/** `--target URL`: no credentials, default assumptions. */
export function profileForUrl(baseUrl: string): Profile {
  const url = normaliseBaseUrl(baseUrl, '--target');
  return parseProfile({ baseUrl: url, name: url });
}
