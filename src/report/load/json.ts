/** `load.json`: the whole result of a load run, versioned, with the merged HdrHistogram for re-analysis. */
import type { LoadRunResult } from '../../load/index.ts';
import { loadExitCode } from '../../check/run/index.ts';

export const LOAD_JSON_VERSION = 1;

/** The target URL without any userinfo, the only place a credential could hide in a result. */
export function publicUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.href.replace(/\/$/, '');
  } catch {
    return '(invalid url)';
  }
}

export function toLoadJson(r: LoadRunResult): string {
  // The exit code is the policy's (src/check/run/exit-code.ts), written beside the figures as load.json has always had it.
  const out = { version: LOAD_JSON_VERSION, ...r, target: { ...r.target, url: publicUrl(r.target.url) }, latencyUnit: 'us', exitCode: loadExitCode(r) };
  return `${JSON.stringify(out, null, 2)}\n`;
}
