/**
 * docs/profiles-and-staging.md's "Running against staging" section: its example profile is a valid profile (read with
 * every variable and file it names in place), its figures are the code's, its CI recipes are YAML,
 * and it keeps the places the latency figures and the throttling paragraph go. The page's first profile
 * and the README's minimal one load too, so no profile a reader copies is refused.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { generateDeviceKey } from '../../src/crypto/keys.ts';
import { ANSWER_SIZES, RESPONSE_BODY_BOUND_BYTES } from '../../src/spec/index.ts';
import { CUT_BODY_KEPT_BYTES } from '../../src/target/client.ts';
import { parseProfile, profileFileIssues } from '../../src/target/profile.ts';

const PAGE = readFileSync(join(import.meta.dirname, '../../docs/profiles-and-staging.md'), 'utf8');
const SECTION = PAGE.split('\n## Running against staging\n')[1]!.split(/\n## /)[0]!;
const TLS = join(import.meta.dirname, '../fixtures/tls');
const dir = mkdtempSync(join(tmpdir(), 'pouchproof-staging-doc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const blocksOf = (text: string, lang: string): string[] => [...text.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
const blocks = (lang: string): string[] => blocksOf(SECTION, lang);

describe('docs/profiles-and-staging.md: Running against staging', () => {
  it('the example profile is valid, and loads with its variables set and its files in place', () => {
    const json = JSON.parse(blocks('json')[0]!) as Record<string, unknown>;
    expect(profileFileIssues(json)).toEqual([]);
    mkdirSync(join(dir, 'certs'));
    copyFileSync(join(TLS, 'ca.cert.pem'), join(dir, 'certs/company-ca.pem'));
    copyFileSync(join(TLS, 'client.cert.pem'), join(dir, 'certs/pouchproof-client.pem'));
    const jwk = () => JSON.stringify(generateDeviceKey().privateJwk);
    const env = {
      STAGING_ROUTE: 'blue', STAGING_CLIENT_KEY: readFileSync(join(TLS, 'client.key.enc.pem'), 'utf8'), STAGING_CLIENT_KEY_PASS: readFileSync(join(TLS, 'client.passphrase'), 'utf8'),
      CORP_PROXY_URL: 'http://ci:pw@proxy.corp:3128', STAGING_BROWSER_AUTH: 'Bearer b', STAGING_DEVICE_AUTH: 'Bearer d', STAGING_DEVICE_JWK: jwk(), STAGING_OTHER_AUTH: 'Bearer o', STAGING_OTHER_JWK: jwk(),
    };
    const p = parseProfile(json, { baseDir: dir, env });
    expect(p.proxy).toEqual({ url: 'http://ci:pw@proxy.corp:3128', from: 'profile' });
    expect(p.tls?.minVersion).toBe('TLSv1.2');
    expect(p.headers).toEqual({ 'x-env-route': 'blue' });
    expect(p.allowAccountChanges).toBe(false);
  });

  it('its figures are the code\'s', () => {
    const commit = ANSWER_SIZES.find((a) => a.endpoint === 'commitOperations')!;
    expect(SECTION).toContain(`${commit.statedBytes.toLocaleString('en-US')} bytes of compact JSON`);
    expect(SECTION).toContain(`${RESPONSE_BODY_BOUND_BYTES / 1024} KiB`);
    expect(SECTION).toContain(`(${RESPONSE_BODY_BOUND_BYTES.toLocaleString('en-US')} bytes)`);
    expect(SECTION).toContain(`default ${RESPONSE_BODY_BOUND_BYTES},`);
    expect(SECTION).toContain(`first ${CUT_BODY_KEPT_BYTES / 1024} KiB`);
  });

  it('its CI recipes are YAML with the secrets as variables; the latency figures and the throttling paragraph are filled in', () => {
    const [github, gitlab] = blocks('yaml').map((b) => parse(b) as Record<string, unknown>);
    const step = (github as { jobs: { conformance: { steps: Array<{ env?: Record<string, string> }> } } }).jobs.conformance.steps[1]!;
    expect(Object.values(step.env!).every((v) => /^\$\{\{ secrets\.[A-Z_]+ \}\}$/.test(v))).toBe(true);
    expect((gitlab as { pouchproof: { artifacts: { when: string } } }).pouchproof.artifacts.when).toBe('always');
    expect(SECTION).not.toMatch(/<!-- (FIGURES|THROTTLING)/);
    // The bench's figures for both links, each with its ratio to loopback.
    expect(SECTION).toMatch(/\| 30 ms round trip \| [\d.]+ s[^|]* \| \d+ \| [\d.]+×[^|]* \|/);
    expect(SECTION).toMatch(/\| 100 ms round trip \| [\d.]+ s \| \d+ \| [\d.]+× \|/);
    expect(SECTION).toMatch(/\*\*Throttling\.\*\* .*429/);
  });
});

describe('the other example profiles: the README\'s minimal one and the page\'s target profile', () => {
  const README = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
  const profileDir = mkdtempSync(join(dir, 'profile-'));
  writeFileSync(join(profileDir, 'device-key.jwk.json'), JSON.stringify(generateDeviceKey().privateJwk));
  const env = { DEVICE_AUTH: 'Bearer d', BROWSER_AUTH: 'Bearer b', OTHER_AUTH: 'Bearer o', OTHER_JWK: JSON.stringify(generateDeviceKey().privateJwk) };

  it.each([
    ['README.md', blocksOf(README, 'json')[0], ['device']],
    ['docs/profiles-and-staging.md "The target profile"', blocksOf(PAGE.split('\n## Running against staging\n')[0]!, 'json')[0], ['browser', 'device']],
  ] as const)('%s: valid, and loads with its variables set and its key file in place', (_where, block, kinds) => {
    expect(block, 'a json block').toBeDefined();
    const json = JSON.parse(block!) as Record<string, unknown>;
    expect(profileFileIssues(json)).toEqual([]);
    const p = parseProfile(json, { baseDir: profileDir, env });
    expect(Object.keys(p.accounts.primary).sort()).toEqual([...kinds]);
    expect(p.accounts.primary.device?.headers).toEqual({ authorization: 'Bearer d' });
    expect(p.accounts.primary.device?.privateKey).toBeDefined();
  });
});
