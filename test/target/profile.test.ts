import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateDeviceKey } from '../../src/crypto/keys.ts';
import { DEFAULT_ASSUMPTIONS } from '../../src/spec/index.ts';
import {
  DEFAULT_CASE_CONCURRENCY,
  DEFAULT_CONNECTIONS,
  ProfileError,
  ProfileFileSchema,
  loadProfile,
  parseProfile,
  profileFileIssues,
  profileForUrl,
  type ProfileFile,
} from '../../src/target/profile.ts';

const dir = mkdtempSync(join(tmpdir(), 'pouchproof-profile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const key = generateDeviceKey();
const JWK_D = key.privateJwk.d!;
const TOKEN_B = 'browser-token-5c1f0e6a9d';
const TOKEN_D = 'device-token-77aa01bc3e';
const DEVICE_ID = '3f0e8a52-6c1d-4b7e-9a2f-0c5d8e7b6a14';
const MEMBER_ID = '8a6c4e2b-1d3f-4a5b-8c7d-9e0f1a2b3c4d';

function valid(): ProfileFile {
  return {
    name: 'example',
    baseUrl: 'http://127.0.0.1:4567/',
    accounts: {
      primary: {
        browser: { headers: { Authorization: `Bearer ${TOKEN_B}` }, memberId: MEMBER_ID },
        device: { headers: { authorization: `Bearer ${TOKEN_D}` }, deviceId: DEVICE_ID, privateJwk: key.privateJwk as Record<string, unknown> & { kty: string } },
      },
    },
    pouchIds: ['00000000-0000-0000-0000-000000000000'],
    timeouts: { requestMs: 5000 },
    connections: 4,
    assumptions: { 'canonical-json': 'sorted-compact' },
  };
}

/** The ProfileError message of a bad profile, checked to be one line with no secret in it. */
function errorOf(json: unknown, env: NodeJS.ProcessEnv = {}): string {
  let caught: unknown;
  try {
    parseProfile(json, { baseDir: dir, env });
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(ProfileError);
  const msg = (caught as Error).message;
  expect(msg).not.toMatch(/\n/);
  for (const s of [JWK_D, TOKEN_B, TOKEN_D]) expect(msg).not.toContain(s);
  return msg;
}

describe('parseProfile: valid files', () => {
  it('reads every field, normalises the base URL and applies defaults', () => {
    const p = parseProfile(valid(), { baseDir: dir, env: {} });
    expect(p.name).toBe('example');
    expect(p.baseUrl).toBe('http://127.0.0.1:4567');
    expect(p.accounts.primary.browser).toMatchObject({ kind: 'browser', memberId: MEMBER_ID, headers: { authorization: `Bearer ${TOKEN_B}` } });
    expect(p.accounts.primary.device?.deviceId).toBe(DEVICE_ID);
    expect(p.accounts.primary.device?.privateKey?.type).toBe('private');
    expect(p.accounts.secondary).toBeUndefined();
    expect(p.timeouts).toEqual({ requestMs: 5000, connectMs: 3000 });
    expect(p.connections).toBe(4);
    // Named in the file, connections also bound the conformance cases in flight.
    expect(p.caseConcurrency).toBe(4);
    expect(p.pouchIds).toEqual(['00000000-0000-0000-0000-000000000000']);
    expect(p.browserIds).toEqual([]);
    expect(p.assumptions['canonical-json']).toBe('sorted-compact');
    expect(p.assumptions['jws-form']).toBe(DEFAULT_ASSUMPTIONS['jws-form']);
  });

  it('lists every secret: header values, their credential part, the JWK d and the JWK text', () => {
    const p = parseProfile(valid(), { baseDir: dir, env: {} });
    expect(p.secrets).toContain(`Bearer ${TOKEN_B}`);
    expect(p.secrets).toContain(TOKEN_B);
    expect(p.secrets).toContain(TOKEN_D);
    expect(p.secrets).toContain(JWK_D);
    expect(p.secrets).toContain(JSON.stringify(key.privateJwk));
  });

  it('reads revocable browsers (4.5 "ends its sessions"): each a member id and its session, whose header values are secrets', () => {
    const spare = 'spare-browser-token-0a1b2c3d';
    const f = valid();
    f.accounts!.primary.revocableBrowsers = [{ headers: { authorization: { env: 'SPARE_AUTH' } }, memberId: DEVICE_ID }];
    const p = parseProfile(f, { baseDir: dir, env: { SPARE_AUTH: `Bearer ${spare}` } });
    expect(p.accounts.primary.revocableBrowsers).toEqual([{ kind: 'browser', memberId: DEVICE_ID, headers: { authorization: `Bearer ${spare}` } }]);
    expect(p.secrets).toContain(spare);
    f.accounts!.primary.revocableBrowsers = [{ headers: {}, memberId: 'not-a-uuid' }];
    expect(errorOf(f)).toMatch(/accounts\.primary\.revocableBrowsers\.0\.memberId|revocableBrowsers.*memberId/);
  });

  it('keeps a path prefix and drops the trailing slash', () => {
    expect(parseProfile({ baseUrl: 'https://api.example.test/sync/' }).baseUrl).toBe('https://api.example.test/sync');
    expect(parseProfile({ baseUrl: 'https://api.example.test' }).name).toBe('api.example.test');
  });

  it('resolves secrets from environment variables and files relative to the profile', () => {
    writeFileSync(join(dir, 'device.jwk.json'), JSON.stringify(key.privateJwk, null, 2) + '\n');
    writeFileSync(join(dir, 'token.txt'), `Bearer ${TOKEN_D}\n`);
    const f = valid();
    f.accounts!.primary.browser!.headers = { authorization: { env: 'BROWSER_AUTH' } };
    f.accounts!.primary.device!.headers = { authorization: { file: 'token.txt' } };
    f.accounts!.primary.device!.privateJwk = { file: 'device.jwk.json' };
    f.accounts!.secondary = { device: { deviceId: DEVICE_ID, privateJwk: { env: 'SECOND_JWK' } } };
    const p = parseProfile(f, { baseDir: dir, env: { BROWSER_AUTH: `Bearer ${TOKEN_B}`, SECOND_JWK: JSON.stringify(key.privateJwk) } });
    expect(p.accounts.primary.browser?.headers['authorization']).toBe(`Bearer ${TOKEN_B}`);
    expect(p.accounts.primary.device?.headers['authorization']).toBe(`Bearer ${TOKEN_D}`); // trailing newline dropped
    expect(p.accounts.primary.device?.privateKey?.type).toBe('private');
    expect(p.accounts.secondary?.device?.privateKey?.type).toBe('private');
    expect(p.secrets).toContain(TOKEN_D);
    expect(p.secrets).toContain(JWK_D);
  });

  it('profileForUrl gives a profile without credentials and default assumptions', () => {
    const p = profileForUrl('http://localhost:8080/');
    expect(p.baseUrl).toBe('http://localhost:8080');
    expect(p.accounts.primary).toEqual({});
    expect(p.secrets).toEqual([]);
    expect(p.assumptions).toEqual(DEFAULT_ASSUMPTIONS);
    // Unnamed, the load engine keeps its 16 connections and the conformance cases go 48 at a time (a link's latency hidden).
    expect([p.connections, p.caseConcurrency]).toEqual([DEFAULT_CONNECTIONS, DEFAULT_CASE_CONCURRENCY]);
    expect(() => profileForUrl('ftp://x')).toThrow(/^--target: scheme must be http or https/);
  });

  it('the file schema accepts the documented shape', () => {
    expect(ProfileFileSchema.safeParse(valid()).success).toBe(true);
    expect(profileFileIssues(valid())).toEqual([]);
  });
});

describe('parseProfile: bad files give one line naming the field', () => {
  const cases: [string, (f: ProfileFile) => unknown, RegExp][] = [
    ['missing baseUrl', (f) => ({ ...f, baseUrl: undefined }), /^baseUrl: required/],
    ['baseUrl scheme', (f) => ({ ...f, baseUrl: 'ftp://h/' }), /^baseUrl: scheme must be http or https/],
    ['baseUrl query', (f) => ({ ...f, baseUrl: 'http://h/?a=1' }), /^baseUrl: must not contain a query/],
    ['baseUrl credentials', (f) => ({ ...f, baseUrl: 'http://u:p@h/' }), /^baseUrl: must not contain credentials/],
    ['baseUrl with /v1', (f) => ({ ...f, baseUrl: 'http://h/v1/' }), /^baseUrl: must not end with \/v1/],
    ['baseUrl not a URL', (f) => ({ ...f, baseUrl: 'localhost' }), /^baseUrl: not an absolute URL/],
    ['unknown top-level field', (f) => ({ ...f, timeout: 5 }), /^timeout: unknown field/],
    ['unknown nested field', (f) => ({ ...f, timeouts: { requestMS: 5 } }), /^timeouts\.requestMS: unknown field/],
    ['timeout not an integer', (f) => ({ ...f, timeouts: { requestMs: 1.5 } }), /^timeouts\.requestMs: expected an integer/],
    ['connections zero', (f) => ({ ...f, connections: 0 }), /^connections: /],
    ['bad pouch id', (f) => ({ ...f, pouchIds: ['x', '00000000-0000-0000-0000-000000000000'] }), /^pouchIds\[0\]: not a UUID/],
    ['uuid with version 0', (f) => ({ ...f, cliRequestIds: ['3f0e8a52-6c1d-0b7e-9a2f-0c5d8e7b6a14'] }), /^cliRequestIds\[0\]: not a UUID/],
    ['device without deviceId', (f) => {
      const g = structuredClone(f) as ProfileFile;
      delete (g.accounts!.primary.device as { deviceId?: string }).deviceId;
      return g;
    }, /^accounts\.primary\.device\.deviceId: required/],
    ['device id not a uuid', (f) => {
      const g = structuredClone(f) as ProfileFile;
      g.accounts!.primary.device!.deviceId = 'dev-1';
      return g;
    }, /^accounts\.primary\.device\.deviceId: not a UUID/],
    ['header secret of the wrong type', (f) => {
      const g = structuredClone(f) as ProfileFile;
      (g.accounts!.primary.browser!.headers as Record<string, unknown>)['authorization'] = 42;
      return g;
    }, /^accounts\.primary\.browser\.headers\.authorization: expected a string, \{"env": "VAR"\}, \{"file": "path"\} or \{"command": \["program", "arg", …\]\}/],
    ['bad header name', (f) => {
      const g = structuredClone(f) as ProfileFile;
      g.accounts!.primary.browser!.headers = { 'bad name': 'x' };
      return g;
    }, /^accounts\.primary\.browser\.headers\.bad name: not a valid HTTP header name/],
    ['header value with a line break', (f) => {
      const g = structuredClone(f) as ProfileFile;
      g.accounts!.primary.browser!.headers = { authorization: `Bearer ${TOKEN_B}\r\nx-evil: 1` };
      return g;
    }, /^accounts\.primary\.browser\.headers\.authorization: value contains a control character/],
    ['JWK not an object', (f) => {
      const g = structuredClone(f) as ProfileFile;
      (g.accounts!.primary.device as Record<string, unknown>)['privateJwk'] = 'abc';
      return g;
    }, /^accounts\.primary\.device\.privateJwk: expected a private JWK object/],
    ['JWK without d', (f) => {
      const g = structuredClone(f) as ProfileFile;
      g.accounts!.primary.device!.privateJwk = key.publicJwk as { kty: string };
      return g;
    }, /^accounts\.primary\.device\.privateJwk: private JWK: member "d" is missing/],
    ['JWK with a foreign d', (f) => {
      const g = structuredClone(f) as ProfileFile;
      g.accounts!.primary.device!.privateJwk = { ...key.privateJwk, d: generateDeviceKey().privateJwk.d } as { kty: string };
      return g;
    }, /^accounts\.primary\.device\.privateJwk: /],
    ['unknown assumption', (f) => ({ ...f, assumptions: { 'no-such-thing': 'x' } }), /^assumptions\.no-such-thing: unknown assumption/],
    ['unknown assumption value', (f) => ({ ...f, assumptions: { 'jws-form': 'detached' } }), /^assumptions\.jws-form: assumption "jws-form" has no reading "detached"; choose one of: digest-payload, b64-text-payload/],
    ['secondary without primary', (f) => ({ ...f, accounts: { secondary: {} } }), /^accounts\.primary: required/],
    ['not an object', () => 7, /^\(profile\): expected object, got number/],
  ];
  for (const [title, mutate, expected] of cases) {
    it(title, () => {
      expect(errorOf(mutate(valid()))).toMatch(expected);
    });
  }

  it('a missing environment variable names the field and the variable', () => {
    const f = valid();
    f.accounts!.primary.browser!.headers = { authorization: { env: 'NO_SUCH_VAR_POUCHPROOF' } };
    expect(errorOf(f)).toBe('accounts.primary.browser.headers.authorization: environment variable NO_SUCH_VAR_POUCHPROOF is not set');
  });

  it('a missing file names the field and the file', () => {
    const f = valid();
    f.accounts!.primary.device!.privateJwk = { file: 'missing.jwk.json' };
    expect(errorOf(f)).toBe('accounts.primary.device.privateJwk: cannot read file "missing.jwk.json" (ENOENT)');
  });

  it('a JWK file that is not JSON names the field and never the content', () => {
    writeFileSync(join(dir, 'broken.jwk'), `{"d": "${JWK_D}",`);
    const f = valid();
    f.accounts!.primary.device!.privateJwk = { file: 'broken.jwk' };
    expect(errorOf(f)).toBe('accounts.primary.device.privateJwk: file "broken.jwk" does not hold a JSON object');
  });

  it('an invalid JWK from the environment never shows the key', () => {
    const f = valid();
    f.accounts!.primary.device!.privateJwk = { env: 'JWK' };
    const msg = errorOf(f, { JWK: JSON.stringify({ ...key.privateJwk, crv: 'P-384' }) });
    expect(msg).toBe('accounts.primary.device.privateJwk: private JWK: "crv" must be "P-256"');
  });

  it('several problems still make one line', () => {
    const msg = errorOf({ baseUrl: 'ftp://x', connections: -1, pouchIds: ['a'] });
    expect(msg).toMatch(/^baseUrl: scheme must be http or https, not ftp \(and 2 more: /);
    expect(msg).toContain('connections: must be at least 1');
    expect(msg).toContain('pouchIds[0]: not a UUID');
  });
});

describe('loadProfile', () => {
  it('loads a file and resolves paths relative to it', async () => {
    writeFileSync(join(dir, 'tok2.txt'), TOKEN_B);
    const f = valid();
    f.accounts!.primary.browser!.headers = { authorization: { file: 'tok2.txt' } };
    const path = join(dir, 'profile.json');
    writeFileSync(path, JSON.stringify(f, null, 2));
    const p = await loadProfile(path, {});
    expect(p.accounts.primary.browser?.headers['authorization']).toBe(TOKEN_B);
  });

  it('a JSON syntax error gives its line and column and no text of the file', async () => {
    const path = join(dir, 'bad.json');
    writeFileSync(path, `{\n  "baseUrl": "http://h",\n  "token": "${TOKEN_B}" "x": 1\n}`);
    const err = await loadProfile(path, {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProfileError);
    const msg = (err as Error).message;
    expect(msg).toBe(`${path}: invalid JSON at line 3, column ${`  "token": "${TOKEN_B}" `.length + 1}: unexpected '"', expected ',' or '}'`);
    expect(msg).not.toContain(TOKEN_B);
  });

  it('a truncated file says where it ends', async () => {
    const path = join(dir, 'short.json');
    writeFileSync(path, '{"baseUrl": "http://h"');
    await expect(loadProfile(path, {})).rejects.toThrow(/invalid JSON at line 1, column 23: unexpected end of input, expected ',' or '}'/);
  });

  it('a missing profile file is one line', async () => {
    await expect(loadProfile(join(dir, 'nope.json'), {})).rejects.toThrow(/^cannot read profile ".*nope\.json" \(ENOENT\)$/);
  });
});
