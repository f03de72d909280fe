/** Loopback addresses and names: what never leaves the machine (no proxy, no `--allow-remote`). */
import { isIP } from 'node:net';

export function isLoopbackAddress(addr: string): boolean {
  const a = addr.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(a) === 4) return a.startsWith('127.');
  if (a === '::1' || a === '0:0:0:0:0:0:0:1') return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  return mapped ? mapped[1].startsWith('127.') : false;
}

/** A URL hostname that is loopback without asking DNS: `localhost` (RFC 6761 keeps it and its subdomains there) or a loopback address. */
export function isLoopbackHostname(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || isLoopbackAddress(h);
}
