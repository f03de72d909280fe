/** The one target resolver: flags to a choice, a choice to a profile, and the embedded reference's lifetime. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chooseTarget, resolveTarget, TargetError, withTarget } from '../../src/target/resolve.ts';
import { EMBEDDED_REFERENCE } from '../../src/reference/embedded.ts';

const dir = mkdtempSync(join(tmpdir(), 'pouchproof-resolve-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether something answers HTTP at `url`. */
async function answers(url: string): Promise<boolean> {
  return fetch(url).then(() => true, () => false);
}

describe('chooseTarget', () => {
  it('maps --profile, --target and neither to the three kinds', () => {
    expect(chooseTarget({ profilePath: 'p.json' })).toEqual({ kind: 'profile-file', path: 'p.json' });
    expect(chooseTarget({ url: 'http://127.0.0.1:1' })).toEqual({ kind: 'url', url: 'http://127.0.0.1:1' });
    expect(chooseTarget({ faults: ['usage-summed'] })).toEqual({ kind: 'embedded', faults: ['usage-summed'] });
    expect(chooseTarget({})).toEqual({ kind: 'embedded' });
    // `--target reference`: the embedded reference by name (its faults allowed), as compare's `reference`.
    expect(chooseTarget({ url: 'reference', faults: ['usage-summed'] })).toEqual({ kind: 'embedded', faults: ['usage-summed'] });
  });

  it('refuses both flags, and faults or readings for an outside target, with one line', () => {
    expect(() => chooseTarget({ profilePath: 'p.json', url: 'http://127.0.0.1:1' })).toThrow(new TargetError('give either --profile or --target, not both'));
    expect(() => chooseTarget({ url: 'http://127.0.0.1:1', faults: ['usage-summed'] })).toThrow(/faults apply to the embedded reference only/);
    expect(() => chooseTarget({ profilePath: 'p.json', readings: { 'pouch-existence': 'must-exist' } })).toThrow(/embedded reference only/);
    // An empty list is no fault at all (`--fault` absent).
    expect(chooseTarget({ url: 'http://127.0.0.1:1', faults: [] })).toEqual({ kind: 'url', url: 'http://127.0.0.1:1' });
  });
});

describe('resolveTarget', () => {
  it('starts the embedded reference, parses its profile once and stops it on close', async () => {
    const t = await resolveTarget({ kind: 'embedded', faults: ['usage-summed'] }, EMBEDDED_REFERENCE);
    expect(t.embedded).toBe(true);
    expect(t.reference?.faults).toEqual(['usage-summed']);
    expect(t.profile.baseUrl).toBe(t.reference?.url);
    expect(t.profile.accounts.primary.device?.privateKey).toBeDefined();
    expect(await answers(t.profile.baseUrl)).toBe(true);
    await t.close();
    expect(await answers(t.profile.baseUrl)).toBe(false);
  });

  it('reads a profile file or a bare URL, with nothing to close', async () => {
    const path = join(dir, 'p.json');
    writeFileSync(path, JSON.stringify({ name: 'staging', baseUrl: 'http://127.0.0.1:9/' }));
    const file = await resolveTarget({ kind: 'profile-file', path });
    expect(file).toMatchObject({ embedded: false, profile: { name: 'staging', baseUrl: 'http://127.0.0.1:9' } });
    expect(file.reference).toBeUndefined();
    await file.close();
    const url = await resolveTarget({ kind: 'url', url: 'http://127.0.0.1:9' });
    expect(url).toMatchObject({ embedded: false, profile: { baseUrl: 'http://127.0.0.1:9' } });
  });

  it('turns a bad profile, URL or fault into a one-line TargetError', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ baseUrl: 'ftp://x' }));
    await expect(resolveTarget({ kind: 'profile-file', path: bad })).rejects.toThrow(TargetError);
    await expect(resolveTarget({ kind: 'profile-file', path: bad })).rejects.toThrow(/baseUrl: scheme must be http or https/);
    await expect(resolveTarget({ kind: 'profile-file', path: join(dir, 'absent.json') })).rejects.toThrow(TargetError);
    await expect(resolveTarget({ kind: 'url', url: 'not a url' })).rejects.toThrow(/--target: not an absolute URL/);
    await expect(resolveTarget({ kind: 'embedded', faults: ['no-such-fault'] }, EMBEDDED_REFERENCE)).rejects.toThrow(TargetError);
  });

  it('starts the embedded reference only through the starter its caller injects, and says so in one line when none was', async () => {
    await expect(resolveTarget({ kind: 'embedded' })).rejects.toThrow(/^the embedded reference is not available here/);
    const asked: unknown[] = [];
    const t = await resolveTarget({ kind: 'embedded', faults: ['usage-summed'] }, { startEmbedded: (c) => (asked.push(c), EMBEDDED_REFERENCE.startEmbedded(c)) });
    try {
      expect(asked).toEqual([{ faults: ['usage-summed'] }]);
      expect(t.reference?.faults).toEqual(['usage-summed']);
    } finally {
      await t.close();
    }
  });
});

describe('withTarget', () => {
  it('closes what it started, even when the use throws, and leaves a resolved target open', async () => {
    let url = '';
    await expect(withTarget({ kind: 'embedded' }, async (t) => {
      url = t.profile.baseUrl;
      expect(await answers(url)).toBe(true);
      throw new Error('boom');
    }, EMBEDDED_REFERENCE)).rejects.toThrow('boom');
    expect(await answers(url)).toBe(false);

    const mine = await resolveTarget({ kind: 'embedded' }, EMBEDDED_REFERENCE);
    try {
      const seen = await withTarget(mine, async (t) => t);
      expect(seen).toBe(mine);
      expect(await answers(mine.profile.baseUrl)).toBe(true);
    } finally {
      await mine.close();
    }
  });
});
