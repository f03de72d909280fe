/**
 * report.html and findings.har from a real run: races.linearizable against the embedded reference
 * with a fault that applies stale bases (so a history cannot be linearized), the reports written as
 * `run` writes them. No token or private key of the profile reaches any file; the HAR is valid
 * HAR 1.2; and, when Chromium is installed, the page renders in headless Chromium with the finding
 * and its timeline in the DOM (skipped with a message where Chromium is missing, failed instead under
 * POUCHPROOF_REQUIRE_TOOLS=1: .ci/run installs Debian's chromium).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import RACES from '../../properties/races.ts';
import { runProperties } from '../../src/check/run/index.ts';
import { buildReport, type Report } from '../../src/report/report-json.ts';
import { writeReports, type WrittenReports } from '../../src/report/write.ts';
import { resolveTarget, type ResolvedTarget } from '../../src/target/resolve.ts';
import { tool } from '../tools.ts';
import { harValidator } from './har-schema.ts';
import { EMBEDDED_REFERENCE } from '../../src/reference/embedded.ts';

const run = promisify(execFile);

/** Debian's `chromium` on PATH, or the binary `CHROMIUM` names. */
const CHROMIUM = tool({
  names: ['chromium', 'chromium-browser'],
  override: 'CHROMIUM',
  file: 'test/report/html-browser.test.ts',
  tests: 'the headless-browser rendering test is',
  install: 'apt-get install chromium',
});

/** No background networking, component updates, sync or QUIC: on a closed network (CI) Chromium's own connections are refused, many at a time. */
const HEADLESS_FLAGS = [
  '--headless', '--disable-gpu', '--no-sandbox', '--no-first-run', '--disable-extensions', '--disable-dev-shm-usage',
  '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

const FAULT = 'stale-base-accepted';
const linearizable = RACES.filter((p) => p.id === 'races.linearizable');

let target: ResolvedTarget;
let root: string;
let report: Report;
let written: WrittenReports;

beforeAll(async () => {
  target = await resolveTarget({ kind: 'embedded', faults: [FAULT] }, EMBEDDED_REFERENCE);
  root = await mkdtemp(join(tmpdir(), 'pouchproof-html-'));
  const result = await runProperties(target.profile, linearizable, { seed: 20260521, runs: 6, embedded: true, endOnFailure: true, perPropertyMs: 20_000 });
  report = buildReport(result, { version: '0.0.0-test', targetName: target.profile.name, embedded: true, faults: [FAULT], runs: 6, assumptions: target.profile.assumptions, properties: linearizable, secrets: target.profile.secrets });
  written = await writeReports(root, report, target.profile.secrets);
}, 30_000);

afterAll(async () => {
  await target?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('the reports of a run that finds a non-linearizable history', () => {
  it('has the violation with its timeline, and no token or private key of the profile in any file', async () => {
    const f = report.properties[0]!.findings.find((x) => x.kind === 'violation');
    expect(f, JSON.stringify(report.properties[0]!.findings.map((x) => x.message))).toBeDefined();
    expect(f!.timeline!.ops.length).toBeGreaterThanOrEqual(2);
    expect(f!.exchanges!.length).toBeGreaterThan(0);
    const secrets = target.profile.secrets;
    // Device tokens, browser tokens and the devices' private JWKs (whole, and their `d`).
    expect(secrets.length).toBeGreaterThanOrEqual(4);
    expect(secrets.some((s) => s.includes('"kty"'))).toBe(true);
    const files = await readdir(written.dir);
    expect(files).toEqual(expect.arrayContaining(['report.html', 'findings.har']));
    for (const name of files) {
      const text = await readFile(join(written.dir, name), 'utf8');
      for (const s of secrets) expect(text.includes(s), `${name} holds a secret of the profile`).toBe(false);
    }
    // The requests did carry credentials: they are there, masked.
    expect(await readFile(join(written.dir, 'findings.har'), 'utf8')).toContain('"value": "***"');
  });

  it('findings.har is valid HAR 1.2 with every exchange of the finding', async () => {
    const har = JSON.parse(await readFile(join(written.dir, 'findings.har'), 'utf8')) as { log: { entries: unknown[] } };
    expect(harValidator()(har)).toEqual([]);
    expect(har.log.entries).toHaveLength(report.properties[0]!.findings.reduce((n, f) => n + (f.exchanges?.length ?? 0), 0));
  });

  it.skipIf(CHROMIUM.skip)('renders in headless Chromium: the verdict, the finding and its SVG timeline are in the DOM, and a screenshot is taken', async () => {
    const chromium = CHROMIUM.need();
    const page = pathToFileURL(join(written.dir, 'report.html')).href;
    const shot = join(root, 'report.png');
    const profileDir = await mkdtemp(join(tmpdir(), 'pouchproof-chromium-'));
    try {
      // One start does both: the DOM after the page's own script ran, and a screenshot of it.
      const { stdout } = await run(
        chromium,
        [...HEADLESS_FLAGS, `--user-data-dir=${profileDir}`, '--window-size=1280,2000', `--screenshot=${shot}`, '--dump-dom', page],
        { timeout: 60_000, maxBuffer: 32 * 1024 * 1024 },
      );
      expect(stdout).toMatch(/<div class="verdict v-failed" id="verdict"><b>FAILED<\/b>/);
      expect(stdout).toMatch(/<article class="finding" id="finding-1" data-kind="violation">/);
      const svg = /<svg[^>]*class="timeline"[\s\S]*?<\/svg>/.exec(stdout);
      expect(svg).not.toBeNull();
      expect(svg![0].match(/<g class="op/g)!.length).toBe(report.properties[0]!.findings.find((x) => x.kind === 'violation')!.timeline!.ops.length);
      // The page's one script, and nothing the report's text could have injected.
      expect(stdout.match(/<script\b/g)).toHaveLength(1);
      const png = await readFile(shot);
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1280, 2000]);
      expect((await stat(shot)).size).toBeGreaterThan(20_000);
    } finally {
      await rm(profileDir, { recursive: true, force: true });
    }
  }, 70_000);
});
