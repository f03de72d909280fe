/** `pouchproof probe` through the CLI entry: the table, --json, --reading, a dead target, bad input. */
import { closedPort, pouchproof } from './spawn-cli.ts';
import { describe, expect, it } from 'vitest';
import { DISCOVERABLE } from '../../src/discover/index.ts';




describe('pouchproof probe', () => {
  it('without a target (and outside CI) probes the embedded reference and prints the table', async () => {
    const r = await pouchproof(['probe'], 90_000, { CI: undefined });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^probed the embedded reference at http:\/\/127\.0\.0\.1:\d+\n/);
    expect(r.stdout).toMatch(/readings of the target \(\d+ requests, \d+ ms\):/);
    for (const name of DISCOVERABLE) expect(r.stdout).toMatch(new RegExp(`^  ${name} +\\S+ \\(default\\)`, 'm'));
  });

  it('--reading starts the reference in that reading; --json prints it for machines', async () => {
    const r = await pouchproof(['probe', '--reference', '--reading', 'usage-stored-meaning=rows-held,seq-semantics=global', '--reading', 'batch-atomicity=per-op', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { readings: Record<string, string>; table: { assumption: string; status: string }[]; requests: number };
    expect(out.readings['usage-stored-meaning']).toBe('rows-held');
    expect(out.readings['seq-semantics']).toBe('global');
    expect(out.readings['batch-atomicity']).toBe('per-op');
    expect(out.readings['conflict-behaviour']).toBe('reject-request');
    expect(out.table.map((t) => t.assumption)).toEqual([...DISCOVERABLE]);
    expect(out.requests).toBeGreaterThan(0);
  });

  it('a target that is down: exit 3 (not reached), every reading unknown with the reason', async () => {
    const port = await closedPort();
    const r = await pouchproof(['probe', '--target', `http://127.0.0.1:${port}`]);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain(`all ${DISCOVERABLE.length} unknown: the target did not answer a plain request usably`);
    expect(r.stdout).toContain('connection refused');
  });

  it('bad input: one line, exit 4, no stack trace', async () => {
    const cases: [string[], RegExp][] = [
      [['probe', '--reading', 'no-such=1'], /--reading: unknown assumption "no-such"/],
      [['probe', '--reading', 'seq-semantics=sideways'], /has no reading "sideways"/],
      [['probe', '--reading', 'novalue'], /--reading expects NAME=VALUE/],
      [['probe', '--target', 'http://127.0.0.1:9', '--reading', 'seq-semantics=global'], /cannot be combined/],
      [['probe', '--target', 'ftp://x'], /--target/],
      [['probe', '--reference', '--target', 'http://127.0.0.1:9'], /give one of --profile, --target or --reference/],
    ];
    const results = await Promise.all(cases.map(([args]) => pouchproof(args)));
    results.forEach((r, i) => {
      expect(r.code, cases[i]![0].join(' ')).toBe(4);
      expect(r.stderr, cases[i]![0].join(' ')).toMatch(cases[i]![1]);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });
  });

  it('under CI, no target is refused (exit 4, one line) rather than a probe of the embedded reference', async () => {
    const r = await pouchproof(['probe'], 30_000, { CI: '1' });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^pouchproof: CI is set and no target was given, so probe would test pouchproof's embedded reference .*--reference to test the embedded reference on purpose\n$/);
  });
});
