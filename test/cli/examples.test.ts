/**
 * The example database and replays that survive upgrades, end to end through the CLI in this
 * process: a fault found (the reference with a fault), the run repeated (the stored case re-runs
 * first and still fails), the fault fixed (the reference without it, at the same address), the run
 * repeated (the stored case now passes, and leaves the store); `replay --report`; and a token that
 * no longer fits says so in one line and sends nothing.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type Reference } from '../../src/api/reference.ts';
import { decodeReplayToken, encodeReplayToken } from '../../src/check/run/replay-token.ts';
import { tokenFit } from '../../src/check/run/token-fit.ts';
import { loadAllProperties, targetFingerprint } from '../../src/session/index.ts';
import { ASSUMPTIONS } from '../../src/spec/index.ts';
import { cli } from './in-process.ts';
import { closedPort } from './spawn-cli.ts';

const PROP = 'usage.monotone';
const FAULT = 'usage-last-write-wins';
let dir: string;
let port: number;
let ref: Reference | undefined;

async function serve(faults: string[]): Promise<string> {
  await ref?.close();
  ref = await startReference({ port, faults });
  const file = join(dir, `profile-${faults.join('-') || 'clean'}.json`);
  await writeFile(file, JSON.stringify(ref.profileDocument));
  return file;
}

const runOnce = (profile: string, seed: number, reportDir: string) =>
  cli(['run', '--profile', profile, '--only', PROP, '--seed', String(seed), '--runs', '8', '--assume', 'defaults', '--properties-at-once', '1', '--examples', join(dir, 'db'), '--report-dir', join(dir, reportDir)]);

interface Examples {
  examples?: { property: string; replay: string; verdict: string; message: string }[];
}
const reportOf = async (reportDir: string) => JSON.parse(await readFile(join(dir, reportDir, 'latest/report.json'), 'utf8')) as Examples & { exitCode: number };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pouchproof-examples-'));
  port = await closedPort();
});
afterAll(async () => {
  await ref?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the example database', () => {
  it('stores a fault found, re-runs it first while it fails, reports it now passing once fixed, and replays a report', async () => {
    const faulty = await serve([FAULT]);
    const first = await runOnce(faulty, 4, 'r1');
    expect(first.code, first.err).toBe(1);
    expect(first.out).not.toContain('stored case');
    const storeDir = join(dir, 'db', targetFingerprint({ embedded: false, baseUrl: `http://127.0.0.1:${port}` }));
    expect(await readdir(storeDir)).toEqual([`${PROP}.json`]);
    const storedNow = async () => (JSON.parse(await readFile(join(storeDir, `${PROP}.json`), 'utf8')) as { cases: { replay: string }[] }).cases.map((c) => c.replay);
    const stored = await storedNow();
    expect(stored.length).toBeGreaterThan(0);
    // No secret of the profile reaches the store.
    const bearer = /Bearer ([^"\s]+)/.exec(JSON.stringify(ref!.profileDocument))![1]!;
    expect(await readFile(join(storeDir, `${PROP}.json`), 'utf8')).not.toContain(bearer);

    // Repeated (another seed): the stored cases run first, before the property's own result, and still fail.
    const second = await runOnce(faulty, 5, 'r2');
    expect(second.code, second.err).toBe(1);
    const lines = second.out.split('\n');
    const storedAt = lines.findIndex((l) => l.startsWith(`stored case of ${PROP} (`));
    const resultAt = lines.findIndex((l, i) => i > storedAt && l.includes(PROP) && !l.startsWith('stored case'));
    expect(storedAt, second.out).toBeGreaterThan(-1);
    expect(resultAt).toBeGreaterThan(storedAt);
    expect(lines.filter((l) => l.startsWith('stored case')).every((l) => /: still failing: violation: /.test(l))).toBe(true);
    const r2 = await reportOf('r2');
    expect(r2.examples?.map((e) => [e.property, e.verdict])).toEqual(stored.map(() => [PROP, 'still-failing']));
    expect(r2.examples?.map((e) => e.replay)).toEqual(stored);
    expect(await readFile(join(dir, 'r2/latest/summary.md'), 'utf8')).toContain(`**Stored failing cases re-run first:** ${stored.length} still failing, 0 now passing, 0 no longer fit`);
    // The second run's own failures join the store (at most eight per property, the newest kept).
    const afterSecond = await storedNow();
    expect(afterSecond).toEqual(expect.arrayContaining(stored));
    expect(afterSecond.length).toBeLessThanOrEqual(8);

    // replay --report against the faulty server: every finding still fails (exit 1).
    const again = await cli(['replay', '--report', join(dir, 'r1/latest/report.json'), '--profile', faulty]);
    expect(again.code, again.err).toBe(1);
    expect(again.out).toMatch(new RegExp(`^finding of ${PROP.replace('.', '\\.')} \\(.+\\): still failing: violation: `, 'm'));

    // The fault fixed, at the same address: the stored cases now pass, the run passes, and they leave the store.
    const fixed = await serve([]);
    const third = await runOnce(fixed, 6, 'r3');
    expect(third.code, third.out + third.err).toBe(0);
    expect(third.out.split('\n').filter((l) => l.startsWith('stored case'))).toEqual(expect.arrayContaining([expect.stringMatching(/: now passing$/)]));
    const r3 = await reportOf('r3');
    expect(r3.examples?.map((e) => e.verdict)).toEqual(afterSecond.map(() => 'now-passing'));
    expect(await readFile(join(dir, 'r3/latest/summary.md'), 'utf8')).toContain(`0 still failing, ${afterSecond.length} now passing`);
    expect(await readdir(storeDir)).toEqual([]);

    // replay --report of the first run against the fixed server: one line per finding, each now passing (exit 0).
    const replayed = await cli(['replay', '--report', join(dir, 'r1/latest/report.json'), '--profile', fixed]);
    expect(replayed.code, replayed.out + replayed.err).toBe(0);
    const per = replayed.out.split('\n').filter((l) => l.startsWith('finding of '));
    expect(per.length).toBeGreaterThan(0);
    for (const l of per) expect(l).toMatch(/: now passing$/);
    expect(replayed.out).toMatch(/\n0 still failing, \d+ now passing, 0 no longer fit\n$/);

    // Under other readings, a stored token no longer fits: one line, nothing run, exit 2.
    const other = ASSUMPTIONS.find((a) => a.decidedBy === 'server' && a.choices.length > 1)!;
    const alt = other.choices.find((c) => c.value !== other.default)!.value;
    const misfit = await cli(['replay', stored[0]!, '--profile', fixed, '--assume', `${other.name}=${alt}`]);
    expect(misfit.code).toBe(2);
    expect(misfit.out).toBe(`no longer fits: the readings differ: ${other.name} was ${other.default}, is ${alt}; nothing was run (run the property again to find the case anew)\n`);
  });

  it('--no-examples stores nothing and re-runs nothing', async () => {
    const faulty = await serve([FAULT]);
    const r = await cli(['run', '--profile', faulty, '--only', PROP, '--seed', '4', '--runs', '5', '--assume', 'defaults', '--no-examples', '--report-dir', join(dir, 'off')]);
    expect(r.code, r.err).toBe(1);
    expect((await reportOf('off')).examples).toBeUndefined();
    expect(r.out).not.toContain('stored case');
  });

  it('a store under /proc, where the recursive mkdir of Node never returned, is a usage error once a case fails, not a hang', async () => {
    const faulty = await serve([FAULT]);
    const r = await cli(['run', '--profile', faulty, '--only', PROP, '--seed', '4', '--runs', '5', '--assume', 'defaults', '--examples', '/proc/pouchproof-examples', '--report-dir', join(dir, 'proc')]);
    expect(r.code, r.out).toBe(4);
    expect(r.err).toMatch(/^pouchproof: cannot write the example database under \/proc\/pouchproof-examples\/\S+: ENOENT \(--no-examples turns it off\)$/m);
  }, 30_000);
});

describe('tokens that no longer fit', () => {
  it('name a coverage case by constraint and variant; old index tokens fit only when made by this version', async () => {
    const ref2 = await startReference();
    try {
      const all = await loadAllProperties();
      const prop = all.find((p) => p.coverage)!;
      const cases = prop.coverage!(ref2.profile);
      const byIndex = { property: prop.id, seed: 0, path: 'c3', runs: 1 };
      expect(tokenFit(prop, ref2.profile, decodeReplayToken(encodeReplayToken(byIndex)))).toEqual({ fits: true, path: 'c3' });
      const old = tokenFit(prop, ref2.profile, decodeReplayToken(encodeReplayToken({ ...byIndex, tool: '0.0.1' })));
      expect(old).toEqual({ fits: false, why: 'it names coverage case 3 by its index, made by pouchproof 0.0.1: which case that is now cannot be told' });
      const named = { property: prop.id, seed: 0, path: 'c', runs: 1, coverageCase: { constraint: cases[3]!.constraint, side: cases[3]!.side, variant: cases[3]!.variant } };
      expect(tokenFit(prop, ref2.profile, decodeReplayToken(encodeReplayToken(named)))).toEqual({ fits: true, path: 'c3' });
      const gone = tokenFit(prop, ref2.profile, decodeReplayToken(encodeReplayToken({ ...named, coverageCase: { ...named.coverageCase, variant: 'no-such-variant' } })));
      expect(gone).toMatchObject({ fits: false, why: expect.stringMatching(/^its coverage case \(no-such-variant of .+\) is gone$/) });
      const changed = tokenFit(prop, ref2.profile, decodeReplayToken(encodeReplayToken({ ...named, inventory: '0123456789abcdef' })));
      expect(changed).toEqual({ fits: false, why: "the property's coverage cases changed since it was made" });
      // A random token whose seed now draws another case.
      const random = all.find((p) => p.id === PROP)!;
      const drift = tokenFit(random, ref2.profile, { property: PROP, seed: 1, path: '2:0', runs: 1, inventory: 'ffffffffffffffff' });
      expect(drift).toEqual({ fits: false, why: 'the cases its seed draws changed since it was made' });
      expect(tokenFit(random, ref2.profile, { property: PROP, seed: 1, path: '2:0', runs: 1, tool: '0.0.1' })).toMatchObject({ fits: false });
    } finally {
      await ref2.close();
    }
  });
});
