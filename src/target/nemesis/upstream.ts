/** Where the nemesis connects for a profile: the target's own host and port, TLS as the profile says. */
import type { Profile } from '../profile.ts';
import { tlsConnectOptions } from '../tls.ts';
import type { Upstream } from './proxy.ts';

export function upstreamOf(profile: Pick<Profile, 'baseUrl' | 'tls'>): Upstream {
  const u = new URL(profile.baseUrl);
  const https = u.protocol === 'https:';
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const port = Number(u.port || (https ? 443 : 80));
  return https ? { host, port, tls: { servername: profile.tls?.servername ?? (/^[\d.:]+$/.test(host) ? undefined : host), ...tlsConnectOptions(profile.tls) } } : { host, port };
}
