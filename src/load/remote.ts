/** Loopback detection for `--allow-remote`: a load run aimed elsewhere must be asked for explicitly. */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isLoopbackAddress } from '../target/loopback.ts';

export { isLoopbackAddress };

/** True when every address the URL's host resolves to is on the loopback interface. */
export async function isLoopbackUrl(url: string): Promise<boolean> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host)) return isLoopbackAddress(host);
  try {
    const addrs = await lookup(host, { all: true });
    return addrs.length > 0 && addrs.every((x) => isLoopbackAddress(x.address));
  } catch {
    return false;
  }
}
