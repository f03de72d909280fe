/**
 * One vocabulary of flags (issue 14.7): every command's --help shows examples, an unknown flag or
 * command is an error (exit 4) that names the closest valid one, and `load`'s old `--reports` still
 * works with a warning; `--version`, and the version in replay tokens. In-process: main() is what
 * bin/pouchproof.js calls.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/main.ts';
import { cli } from './in-process.ts';
import { closest, distance } from '../../src/cli/suggest.ts';
import { EXAMPLE_TOKEN, replayEnding, versionNote } from '../../src/cli/commands/replay.ts';
import { decodeReplayToken, encodeReplayToken } from '../../src/check/run/replay-token.ts';
import { drawnInventory, readingsStamp } from '../../src/check/run/token-stamp.ts';
import { startReference } from '../../src/api/reference.ts';
import { loadAllProperties } from '../../src/session/index.ts';

afterEach(() => {
  process.removeAllListeners('SIGINT');
});

describe('one vocabulary for flags', () => {
  it.each(Object.keys(COMMANDS))('`%s --help` shows its options and at least one example', async (name) => {
    const r = await cli([name, '--help']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('Options:');
    expect(r.out).toMatch(/Examples:\n\s+(pouchproof|npm) /);
  });

  it.each([
    [['run', '--sed', '1'], 'unknown option --sed (did you mean --seed?)'],
    [['run', '--repot-dir', 'x'], 'unknown option --repot-dir (did you mean --report-dir?)'],
    [['load', '--scenario', 'commit-throughput', '--reports-dir', 'x'], 'unknown option --reports-dir (did you mean --report-dir?)'],
    [['compare', '--per-propery-ms', '5'], 'unknown option --per-propery-ms (did you mean --per-property-ms?)'],
    [['rnu'], 'unknown command rnu (did you mean run?)'],
  ])('%j is refused with exit 4, naming the closest valid name', async (args, message) => {
    const r = await cli(args);
    expect(r.code).toBe(4);
    expect(r.err).toContain(message);
    expect(r.err).not.toMatch(/reportsDir|repotDir/); // the camel-cased echo yargs adds is not repeated
    expect(r.err).not.toMatch(/\n\s+at /);
  });

  it('suggests nothing for a flag unlike every option', async () => {
    const r = await cli(['run', '--zzzzzzzz']);
    expect(r.code).toBe(4);
    expect(r.err).toContain('unknown option --zzzzzzzz; --help lists them');
  });

  it('every command that writes reports says --report-dir; load hides its old --reports', async () => {
    for (const name of ['run', 'start', 'compare', 'mutants', 'load']) expect((await cli([name, '--help'])).out, name).toContain('--report-dir');
    expect((await cli(['load', '--help'])).out).not.toMatch(/--reports\b/);
  });

  it('load --reports still writes there, with a warning naming --report-dir', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pouchproof-flags-'));
    try {
      const r = await cli(['load', '--scenario', 'commit-throughput', '--reference', '--duration', '300ms', '--max-requests', '20', '--reports', dir]);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toContain('--reports is deprecated; use --report-dir');
      expect((await readdir(dir)).some((d) => d.includes('load-commit-throughput'))).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('distance counts a swap of neighbours once; closest needs the names to be close', () => {
    expect(distance('seed', 'sede')).toBe(1);
    expect(distance('', 'abc')).toBe(3);
    expect(closest('only', ['only', 'runs'])).toBe('only');
    expect(closest('xyz', ['seed', 'runs'])).toBeUndefined();
  });
});

describe('the version', () => {
  const pkg = async () => (JSON.parse(await readFile(join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string }).version;

  it.each(['--version', '-V'])('`pouchproof %s` prints package.json\'s version and exits 0', async (flag) => {
    const r = await cli([flag]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe(`${await pkg()}\n`);
    expect((await cli(['--help'])).out).toMatch(/-V, --version +print the version of pouchproof/);
  });

  it('`replay --help` shows an example token the decoder takes, naming a property pouchproof has', async () => {
    const r = await cli(['replay', '--help']);
    const token = /\n {2}pouchproof replay (\S+) --profile/.exec(r.out)?.[1];
    expect(token, r.out).toBeDefined();
    const decoded = decodeReplayToken(token!);
    expect(decoded.tool).toBe(await pkg());
    expect((await loadAllProperties()).map((p) => p.id)).toContain(decoded.property);
  });

  it('replay --nemesis replays under the run\'s faults, said in one line; a bad SPEC is a usage error before anything is sent', async () => {
    const r = await cli(['replay', EXAMPLE_TOKEN, '--reference', '--nemesis', 'duplicate=100%']);
    expect(r.code, r.err + r.out).toBe(0);
    const { seed } = decodeReplayToken(EXAMPLE_TOKEN);
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(/^replaying usage\.never-summed /);
    expect(lines[1]).toBe(`nemesis: duplicate=100%, seeded ${seed}: the faults the run's requests met`);
    expect(r.out).toMatch(/^not reproduced: the property passes on this target$/m);
    const bad = await cli(['replay', EXAMPLE_TOKEN, '--reference', '--nemesis', 'lose-everything=5%']);
    expect(bad.code).toBe(4);
    expect(bad.err).toMatch(/--nemesis: /);
    expect(bad.out).not.toMatch(/replaying/);
  });

  it('a replay that could not judge its case is neither reproduced nor passed: exit 2, never a green "not reproduced"', () => {
    const inconclusive = replayEnding({ status: 'inconclusive', inconclusive: 'judged 0 of 42 random cases (its floor: 21)', findings: [{ kind: 'transport', property: 'p', section: '4.3', message: 'no answer' }] });
    expect(inconclusive).toEqual({ line: 'not judged: judged 0 of 42 random cases (its floor: 21); the finding is neither reproduced nor shown gone', code: 2 });
    expect(replayEnding({ status: 'passed', findings: [] }).code).toBe(0);
    expect(replayEnding({ status: 'failed', findings: [{ kind: 'violation', property: 'p', section: '4.3', message: 'summed' }] }).code).toBe(1);
  });

  it('replay of a token another version made says so in one line: replayed when its fingerprint shows the same case, else not run', async () => {
    const ref = await startReference();
    const prop = (await loadAllProperties()).find((p) => p.id === 'usage.never-summed')!;
    const base = decodeReplayToken(EXAMPLE_TOKEN);
    const fits = encodeReplayToken({ ...base, tool: '0.0.1', readings: readingsStamp(ref.profile.assumptions), inventory: drawnInventory(prop.arbitrary(ref.profile), base.seed, base.path) });
    await ref.close();
    const r = await cli(['replay', fits, '--reference']);
    expect(r.code, r.err).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toBe(`note: this token was made by pouchproof 0.0.1, and this is pouchproof ${await pkg()}: the property's cases may have changed since`);
    expect(lines[1]).toMatch(/^replaying usage\.never-summed /);
    expect(r.out.match(/^note: /gm)).toHaveLength(1);
    // Without a fingerprint, another version's token cannot be shown to name the same case: one line, nothing run.
    const old = await cli(['replay', encodeReplayToken({ ...base, tool: '0.0.1' }), '--reference']);
    expect(old.code).toBe(2);
    expect(old.out).toBe('no longer fits: made by pouchproof 0.0.1 without a fingerprint of its cases: that its seed still draws the same case cannot be told; nothing was run (run the property again to find the case anew)\n');
    expect(versionNote(decodeReplayToken(EXAMPLE_TOKEN))).toBeUndefined();
    expect(versionNote({ property: 'p', seed: 1, path: '0', runs: 1 }, '9.9.9')).toMatch(/^note: this token was made by a version of pouchproof from before tokens named theirs, and this is pouchproof 9\.9\.9:/);
  });
});
