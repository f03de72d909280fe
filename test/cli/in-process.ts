/** `pouchproof` in this process, as bin/pouchproof.js runs it (main()), its output captured: for CLI tests that need no child process. */
import { vi } from 'vitest';
import { main } from '../../src/cli/main.ts';

export async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => ((out += String(c)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => ((err += String(c)), true));
  const l = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void (out += `${a.join(' ')}\n`));
  const ce = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void (err += `${a.join(' ')}\n`));
  try {
    process.exitCode = 0;
    await main(args);
    return { code: Number(process.exitCode ?? 0), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
    l.mockRestore();
    ce.mockRestore();
    process.exitCode = 0;
  }
}
