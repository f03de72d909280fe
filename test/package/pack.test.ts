/**
 * The published package, end to end: the project is built and packed, the tarball
 * installed into an empty project with npm, and from there the installed `pouchproof` CLI, the
 * library API and the vitest entry are run against the embedded reference. Dependencies come from
 * npm's cache (filled by `npm ci`), from the registry only when the cache lacks one.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_SCRIPT, CONSUMER_PACKAGE, TYPED_CONSUMER, VITEST_FILE } from './fixtures.ts';

const ROOT = join(import.meta.dirname, '../..');
/** What the build needs from the clone: the package's own sources and configuration (tests, benches, reports stay behind). */
const BUILD_INPUTS = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'LICENSE', 'bin', 'src', 'properties', 'scenarios'];

interface Done {
  code: number | null;
  stdout: string;
  stderr: string;
}

function sh(cmd: string, args: readonly string[], cwd: string, timeoutMs: number, env: NodeJS.ProcessEnv = {}): Promise<Done> {
  return new Promise((resolve) => {
    // The suite's own POUCHPROOF_FROM_SOURCE must not reach the installed package: it has no sources.
    const { POUCHPROOF_FROM_SOURCE: _, ...base } = process.env;
    execFile(cmd, [...args], { cwd, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 32 * 1024 * 1024, env: { ...base, NO_COLOR: '1', ...env } }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let dir: string;
let project: string;
let tarballFiles: string[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pouchproof-pack-'));
  // Packed from a copy, so the build never rewrites the clone's dist/ while other tests run.
  const src = join(dir, 'src');
  await mkdir(src);
  for (const f of BUILD_INPUTS) await cp(join(ROOT, f), join(src, f), { recursive: true });
  await symlink(join(ROOT, 'node_modules'), join(src, 'node_modules'), 'dir');
  // The build script as `prepack` runs it, without its type check: `npm test` has just checked every
  // file (tsc --noEmit), and the emitted JavaScript is the same either way. That keeps this test in its budget.
  const built = await sh(NPM, ['run', 'build', '--', '--noCheck'], src, 240_000);
  if (built.code !== 0) throw new Error(`npm run build failed (${built.code}): ${built.stderr.slice(-2000)}`);
  const packed = await sh(NPM, ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], src, 60_000);
  if (packed.code !== 0) throw new Error(`npm pack failed (${packed.code}): ${packed.stderr.slice(-2000)}`);
  const info = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  tarballFiles = info[0]!.files.map((f) => f.path);
  const tarball = join(dir, info[0]!.filename);

  project = join(dir, 'adopter');
  await mkdir(project);
  const vitestVersion = (JSON.parse(await readFile(join(ROOT, 'node_modules/vitest/package.json'), 'utf8')) as { version: string }).version;
  await writeFile(join(project, 'package.json'), CONSUMER_PACKAGE(tarball, vitestVersion));
  const install = ['install', '--no-audit', '--no-fund', '--no-update-notifier'];
  let installed = await sh(NPM, [...install, '--offline'], project, 180_000);
  if (installed.code !== 0) installed = await sh(NPM, [...install, '--prefer-offline'], project, 180_000);
  if (installed.code !== 0) throw new Error(`npm install of the tarball failed (${installed.code}): ${installed.stderr.slice(-2000)}`);
}, 480_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('holds what runs (dist, bin, README, LICENSE, package.json) and nothing else; packing builds it first', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.prepack).toBe('npm run build');
    const needed = ['LICENSE', 'bin/pouchproof.js', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/vitest.js', 'dist/src/load/worker-boot.mjs', 'dist/properties/index.js', 'dist/scenarios/commit-throughput.js'];
    expect(needed.filter((f) => !tarballFiles.includes(f))).toEqual([]);
    const stray = tarballFiles.filter((f) => !/^(dist\/.+\.(js|mjs|d\.ts)|bin\/pouchproof\.js|README\.md|LICENSE|package\.json)$/.test(f));
    expect(stray).toEqual([]);
  });

  it('installs without the dev tools: no tsx, no autocannon, no typescript', () => {
    const modules = join(project, 'node_modules');
    expect(existsSync(join(modules, 'pouchproof/dist/src/cli/main.js'))).toBe(true);
    for (const dev of ['tsx', 'autocannon', 'typescript', '@stryker-mutator']) expect(existsSync(join(modules, dev)), dev).toBe(false);
  });

  it('the installed pouchproof answers --help and runs against its embedded reference', async () => {
    const help = await sh(NPM, ['exec', '--no', '--', 'pouchproof', '--help'], project, 60_000);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain('pouchproof run');
    const version = await sh(NPM, ['exec', '--no', '--', 'pouchproof', '--version'], project, 60_000);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout).toBe(`${(JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}\n`);
    const r = await sh(NPM, ['exec', '--no', '--', 'pouchproof', 'run', '--reference', '--only', 'usage.idempotent', '--runs', '3', '--seed', '3', '--max-duration', '60s', '--report-dir', 'reports'], project, 120_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('no violations');
    const report = JSON.parse(await readFile(join(project, 'reports/latest/report.json'), 'utf8')) as { tool: { version: string }; totals: { passed: number } };
    expect(report.totals.passed).toBe(1);
    // The version is read from the installed package.json, which sits above dist/.
    expect(report.tool.version).toBe((JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);
  });

  it('the library API: run, startReference, loadProfile and properties, without console output', async () => {
    await writeFile(join(project, 'api.mjs'), API_SCRIPT);
    const r = await sh(process.execPath, ['api.mjs'], project, 120_000);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    // One line: the script's own. The API itself writes nothing.
    expect(lines).toHaveLength(1);
    const seen = JSON.parse(lines[0]!) as { properties: number; clean: { exitCode: number; passed: number }; faulted: { exitCode: number; violations: number }; bad: string };
    expect(seen.properties).toBeGreaterThan(20);
    expect(seen.clean).toEqual({ exitCode: 0, passed: 1 });
    expect(seen.faulted.exitCode).toBe(1);
    expect(seen.faulted.violations).toBeGreaterThan(0);
    expect(seen.bad).toMatch(/runs must be an integer/);
  });

  it('the declarations: a TypeScript adopter type-checks against the installed package', { timeout: 120_000 }, async () => {
    await writeFile(join(project, 'typed.ts'), TYPED_CONSUMER);
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const flags = ['--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--typeRoots', join(ROOT, 'node_modules/@types'), '--types', 'node'];
    const r = await sh(process.execPath, [tsc, ...flags, 'typed.ts'], project, 110_000);
    expect(r.stdout + r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('the declarations the entries reach import no yargs (a dev-only type package)', async () => {
    const dist = join(project, 'node_modules/pouchproof/dist');
    const seen = new Set<string>();
    const importers: string[] = [];
    const queue = [join(dist, 'src/index.d.ts'), join(dist, 'src/vitest.d.ts')];
    while (queue.length > 0 && seen.size < 2000) {
      const file = queue.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      const text = await readFile(file, 'utf8');
      // Import declarations and the inline `import("…")` types tsc writes for inferred types.
      for (const m of text.matchAll(/(?:from '|import\(")([^'"]+)['"]/g)) {
        const spec = m[1]!;
        if (spec === 'yargs' || spec.startsWith('yargs/')) importers.push(file.slice(dist.length + 1));
        if (spec.startsWith('.')) queue.push(join(file, '..', spec.replace(/\.ts$/, '.d.ts')));
      }
    }
    expect(seen.size).toBeGreaterThan(10);
    expect(importers).toEqual([]);
  });

  it('pouchproof/vitest: one test per property in the adopter\'s own vitest run: passed, failed with the finding, skipped', async () => {
    await writeFile(join(project, 'conformance.test.mjs'), VITEST_FILE);
    const r = await sh(NPM, ['exec', '--no', '--', 'vitest', 'run', '--reporter=json', '--outputFile=vitest.json'], project, 180_000);
    expect(r.code).toBe(1);
    const out = JSON.parse(await readFile(join(project, 'vitest.json'), 'utf8')) as { testResults: { assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[] };
    const tests = out.testResults.flatMap((f) => f.assertionResults);
    const byBlock = (name: string) => tests.find((t) => t.fullName.startsWith(`${name} `));
    expect(byBlock('embedded')?.status).toBe('passed');
    const failed = byBlock('faulted');
    expect(failed?.status).toBe('failed');
    const message = failed?.failureMessages.join('\n') ?? '';
    expect(message).toContain('violation: usage.never-summed (§4.3)');
    expect(message).toMatch(/replay: pouchproof replay [A-Za-z0-9_-]+/);
    expect(message).toContain('curl ');
    expect(message).toContain('(seed 5)');
    // The reference's bearer tokens are secrets: masked in the failure as in every report.
    expect(message).not.toMatch(/Bearer (?!\*\*\*)/);
    expect(byBlock('no-credentials')?.status).toBe('skipped');
    expect(tests).toHaveLength(3);
  });
});
