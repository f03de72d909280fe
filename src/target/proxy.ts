/**
 * Which HTTP proxy, if any, carries the requests to a target: the profile's `proxy`, else the
 * environment's, as curl and undici read it (`https_proxy`/`HTTPS_PROXY` for an https target,
 * `http_proxy`/`HTTP_PROXY` for an http one, lower case first), unless `no_proxy`/`NO_PROXY` names
 * the host. A loopback target never goes through a proxy (as Go's clients decide): the embedded
 * reference and a local server stay local whatever a CI runner's environment says. Decided once,
 * when the profile is read, so that every client of a run (conformance, probe, load, curl lines)
 * takes the same route.
 */
import { BlockList, isIP } from 'node:net';
import { errorCodes, innermostMessage } from './error-codes.ts';
import { FieldError } from './field-error.ts';
import { isLoopbackHostname } from './loopback.ts';

/** Where the proxy setting came from: the profile, or the environment variable that named it. */
export type ProxySource = 'profile' | 'https_proxy' | 'HTTPS_PROXY' | 'http_proxy' | 'HTTP_PROXY';

export interface ProxyRoute {
  /** `http://[user:password@]host:port` (or https:), credentials as given: a secret of the profile. */
  readonly url: string;
  readonly from: ProxySource;
}

/** A proxy setting that cannot be used: `field` names where it came from (the profile's field, or the variable). */
export class ProxyError extends FieldError {
  override readonly name = 'ProxyError';
}

/** The proxy URL, normalised (`proxy.example:3128` → `http://proxy.example:3128`), or why not. */
export function parseProxyUrl(raw: string, field: string): URL {
  const text = raw.trim();
  let u: URL;
  try {
    u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  } catch {
    throw new ProxyError(field, 'not a URL (expected http://host:port, with user:password@ if the proxy asks for credentials)');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ProxyError(field, `scheme must be http or https, not ${u.protocol.replace(/:$/, '')} (an HTTP proxy that tunnels with CONNECT)`);
  }
  if ((u.pathname !== '/' && u.pathname !== '') || u.search || u.hash) throw new ProxyError(field, 'must be http://host:port, without a path, query or fragment');
  return u;
}

/**
 * The values that must never be printed: the password, and user:password (whose base64 is the
 * Proxy-Authorization value); a user name alone is the secret only when there is no password (a
 * token as the user name). A user name beside a password is not masked: it is often short and
 * would mask its letters everywhere.
 */
export function proxySecrets(url: string): string[] {
  const u = new URL(url);
  if (!u.username && !u.password) return [];
  const user = safeDecode(u.username);
  const password = safeDecode(u.password);
  if (!password) return [user, u.username].filter((s) => s !== '');
  return [password, `${user}:${password}`, u.password];
}

/** `Proxy-Authorization` for a proxy URL with credentials (Basic, as curl and undici send it). */
export function proxyAuthorization(url: string): string | undefined {
  const u = new URL(url);
  if (!u.username && !u.password) return undefined;
  return `Basic ${Buffer.from(`${safeDecode(u.username)}:${safeDecode(u.password)}`).toString('base64')}`;
}

/** The proxy URL as reports may show it: credentials replaced. */
export function shownProxy(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.username || u.password ? '***@' : ''}${u.host}`;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/**
 * Whether `no_proxy` exempts a host: `*` exempts every host; an entry exempts its host and its
 * subdomains (`example.com`, `.example.com` and `*.example.com` alike), an IP address itself, a
 * CIDR block its addresses; `host:port` only that port.
 */
export function noProxyExempts(hostname: string, port: number, noProxy: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  for (const raw of noProxy.split(/[,\s]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    let name = entry;
    let only: string | undefined;
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    const hostPort = /^([^:]+):(\d+)$/.exec(entry);
    // A bare IPv6 address (or block) has colons of its own: only `[addr]:port` names a port for it.
    if (bracketed) [name, only] = [bracketed[1], bracketed[2]];
    else if (hostPort) [name, only] = [hostPort[1], hostPort[2]];
    if (only !== undefined && Number(only) !== port) continue;
    if (name.includes('/')) {
      if (cidrContains(name, host)) return true;
      continue;
    }
    const bare = name.replace(/^\*?\./, '');
    if (bare === '') continue;
    if (host === bare || (isIP(host) === 0 && host.endsWith(`.${bare}`))) return true;
  }
  return false;
}

function cidrContains(cidr: string, host: string): boolean {
  const [net, bits] = cidr.split('/');
  const family = isIP(net ?? '');
  if (family === 0 || isIP(host) !== family || !/^\d+$/.test(bits ?? '')) return false;
  const list = new BlockList();
  try {
    list.addSubnet(net, Number(bits), family === 4 ? 'ipv4' : 'ipv6');
  } catch {
    return false;
  }
  return list.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The route to `baseUrl`: the profile's proxy when it gives one, else the environment's; none for
 * a loopback target or one `no_proxy` names (which applies to the environment's proxies and the
 * profile's alike, as it does in curl).
 */
export function proxyFor(baseUrl: string, configured: string | undefined, env: NodeJS.ProcessEnv): ProxyRoute | undefined {
  const target = new URL(baseUrl);
  if (isLoopbackHostname(target.hostname)) return undefined;
  const port = Number(target.port) || DEFAULT_PORTS[target.protocol] || 0;
  const noProxy = env['no_proxy'] ?? env['NO_PROXY'] ?? '';
  if (noProxyExempts(target.hostname, port, noProxy)) return undefined;
  if (configured !== undefined) return { url: parseProxyUrl(configured, 'proxy').href.replace(/\/$/, ''), from: 'profile' };
  const names: readonly ProxySource[] = target.protocol === 'https:' ? ['https_proxy', 'HTTPS_PROXY'] : ['http_proxy', 'HTTP_PROXY'];
  for (const name of names) {
    const v = env[name];
    if (v === undefined || v.trim() === '') continue;
    return { url: parseProxyUrl(v, name).href.replace(/\/$/, ''), from: name };
  }
  return undefined;
}

/**
 * A failure the proxy itself reported or caused, as one line, or undefined. `proxy` is the proxy
 * as shown (credentials masked), `host` the target's host:port.
 */
export function describeProxyFailure(err: unknown, proxy: string, host: string): string | undefined {
  const codes = errorCodes(err);
  const message = innermostMessage(err);
  const status = /Proxy response \((\d+)\)/.exec(message)?.[1] ?? (/Proxy Authentication Required \(407\)/.test(message) ? '407' : undefined);
  if (status !== undefined) return proxyRefusal(proxy, host, Number(status));
  if (codes.includes('ECONNREFUSED')) return `connection refused by the proxy ${proxy}`;
  if (codes.includes('ENOTFOUND') || codes.includes('EAI_AGAIN')) return `DNS lookup failed for the proxy ${proxy}`;
  return undefined;
}

/** The proxy answered something other than 200 to a CONNECT (or 407 to a forwarded request). */
export function proxyRefusal(proxy: string, host: string, status: number): string {
  const why =
    status === 407
      ? ': it asks for credentials; give them in the proxy URL (http://user:password@host:port)'
      : status === 403
        ? ': it does not let this client reach the target (ask for the target to be allowed, or run inside the network)'
        : status === 502 || status === 503 || status === 504
          ? ': it could not reach the target'
          : '';
  return `the proxy ${proxy} answered ${status} to CONNECT ${host}${why}`;
}
