/**
 * The CI recipe: action.yml against the published schema of GitHub Action metadata, its inputs wired
 * to what ci/github-action.sh reads, and the script's `run` step run here as the action runs it,
 * against the embedded reference (the outputs and step summary checked, the secret profile masked),
 * and refused when not exactly one of profile, profile-json and target is given.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type Reference } from '../../src/api/reference.ts';
import { cliEntry, closedPort, withEnv } from '../cli/spawn-cli.ts';

const ROOT = join(import.meta.dirname, '../..');
const SCRIPT = join(ROOT, 'ci/github-action.sh');

interface Action {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { steps: { id?: string; env?: Record<string, string>; run?: string; uses?: string }[] };
}

async function action(): Promise<{ text: string; doc: Action }> {
  const text = await readFile(join(ROOT, 'action.yml'), 'utf8');
  return { text, doc: parse(text) as Action };
}

describe('action.yml', () => {
  it('is valid GitHub Action metadata (SchemaStore github-action.json)', async () => {
    const schema = JSON.parse(await readFile(join(ROOT, 'ci/schemas/github-action.json'), 'utf8')) as object;
    const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
    const { doc } = await action();
    const ok = validate(doc);
    expect(validate.errors ?? [], JSON.stringify(validate.errors)).toEqual([]);
    expect(ok).toBe(true);
    // The schema does catch a broken file: the check can fail.
    expect(validate({ ...doc, runs: { using: 'composite', steps: [{ run: 'x' }] } })).toBe(false);
  });

  it('declares every input it uses, and passes the script every INPUT_ variable the script reads', async () => {
    const { text, doc } = await action();
    const used = new Set([...text.matchAll(/inputs\.([a-z-]+)/g)].map((m) => m[1]!));
    expect([...used].filter((u) => !(u in doc.inputs))).toEqual([]);
    const script = await readFile(SCRIPT, 'utf8');
    const read = new Set([...script.matchAll(/INPUT_([A-Z_]+)/g)].map((m) => `INPUT_${m[1]!}`));
    const passed = new Set(doc.runs.steps.flatMap((s) => Object.keys(s.env ?? {})));
    expect([...read].filter((v) => !passed.has(v))).toEqual([]);
    // Secrets reach the script through env only: no input is interpolated into a script line.
    for (const s of doc.runs.steps) expect(s.run ?? '').not.toMatch(/\$\{\{\s*inputs\./);
    for (const o of Object.values(doc.outputs)) expect(o.value).toMatch(/^\$\{\{ steps\.run\.outputs\.[a-z-]+ \}\}$/);
  });
});

describe('docs/ci.md: the GitLab CI job', () => {
  it('is YAML with an image, the install and run commands, and reports and JUnit as artifacts', async () => {
    const md = await readFile(join(ROOT, 'docs/ci.md'), 'utf8');
    const block = /```yaml\n# \.gitlab-ci\.yml\n([\s\S]*?)```/.exec(md)?.[1];
    expect(block, 'a ```yaml block opening with # .gitlab-ci.yml').toBeDefined();
    const doc = parse(block!) as Record<string, { image?: string; script?: string[]; artifacts?: { when?: string; paths?: string[]; reports?: { junit?: string } } }>;
    const job = doc.pouchproof!;
    expect(job.image).toMatch(/^node:20/);
    expect(job.script!.join('\n')).toMatch(/npm install --global pouchproof/);
    expect(job.script!.join('\n')).toMatch(/pouchproof run .*--report-dir/);
    expect(job.artifacts?.when).toBe('always');
    expect(job.artifacts?.reports?.junit).toMatch(/junit\.xml$/);
  });
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
}

let dir: string;
let ref: Reference;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pouchproof-action-'));
  ref = await startReference({ faults: ['usage-summed'] });
});
afterAll(async () => {
  await ref?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function runStep(name: string, inputs: Record<string, string>): Promise<Ran> {
  const cwd = await mkdtemp(join(dir, `${name}-`));
  const runnerTemp = join(cwd, 'runner-temp');
  await mkdir(runnerTemp);
  const outputFile = join(cwd, 'github-output');
  const summaryFile = join(cwd, 'step-summary');
  await writeFile(outputFile, '');
  await writeFile(summaryFile, '');
  const cli = await cliEntry();
  const env = withEnv(cli.env, inputs, { NO_COLOR: '1', RUNNER_TEMP: runnerTemp, GITHUB_OUTPUT: outputFile, GITHUB_STEP_SUMMARY: summaryFile, POUCHPROOF_COMMAND: `${process.execPath} ${cli.bin}` });
  const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile('bash', [SCRIPT, 'run'], { cwd, env, timeout: 120_000, killSignal: 'SIGKILL' }, (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }));
  });
  const outputs = Object.fromEntries((await readFile(outputFile, 'utf8')).split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  // The secret profile's private temporary file is gone once the step ends.
  expect(await readdir(runnerTemp)).toEqual([]);
  return { ...r, outputs, summary: await readFile(summaryFile, 'utf8') };
}

describe('ci/github-action.sh run, as the action runs it', () => {
  it('a secret profile from the environment: the violation is the verdict, exit-code 1, and no token is printed', async () => {
    const tokens = JSON.stringify(ref.profileDocument).match(/Bearer [^"\s]+/g) ?? [];
    expect(tokens.length).toBeGreaterThan(0);
    const r = await runStep('secret', { INPUT_PROFILE_JSON: JSON.stringify(ref.profileDocument), INPUT_ONLY: 'usage.never-summed', INPUT_SEED: '4', INPUT_MAX_DURATION: '60s' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.outputs['exit-code']).toBe('1');
    expect(r.outputs.verdict).toBe('failed');
    expect(r.outputs.headline).toMatch(/^[1-9]\d* violation\(s\)/);
    expect(r.summary).toMatch(/^## pouchproof: [1-9]\d* violation/);
    expect(r.summary).toContain('usage.never-summed');
    expect(r.outputs.junit).toMatch(/\/pouchproof-reports\/[^/]+\/junit\.xml$/);
    expect(await readFile(r.outputs.junit!, 'utf8')).toContain('<testsuites');
    const report = await readFile(join(r.outputs['report-dir']!, 'report.json'), 'utf8');
    for (const t of tokens) for (const text of [r.stdout, r.stderr, r.summary, report]) expect(text).not.toContain(t.slice('Bearer '.length));
  });

  it('exclude, max-failures and no-shrink reach pouchproof as its flags, and the report records them', async () => {
    const r = await runStep('select', { INPUT_PROFILE_JSON: JSON.stringify(ref.profileDocument), INPUT_ONLY: 'usage.*', INPUT_EXCLUDE: 'usage.concurrent-*,usage.large-*', INPUT_MAX_FAILURES: '1', INPUT_NO_SHRINK: 'true', INPUT_SEED: '4', INPUT_MAX_DURATION: '60s' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.outputs['exit-code']).toBe('1');
    const report = JSON.parse(await readFile(join(r.outputs['report-dir']!, 'report.json'), 'utf8')) as { options: Record<string, unknown>; properties: { id: string; findings: { kind: string; shrinks?: number }[] }[] };
    expect(report.options).toMatchObject({ only: ['usage.*'], exclude: ['usage.concurrent-*', 'usage.large-*'], maxFailures: 1, shrink: false });
    expect(report.properties.map((p) => p.id).filter((id) => id.startsWith('usage.concurrent') || id.startsWith('usage.large'))).toEqual([]);
    const violations = report.properties.flatMap((p) => p.findings).filter((f) => f.kind === 'violation');
    expect(violations.length).toBeGreaterThan(0);
    for (const f of violations) expect(f.shrinks).toBe(0);
  });

  it('a no-shrink that is neither true nor false: refused before anything runs, naming the input', async () => {
    const r = await runStep('bad-no-shrink', { INPUT_TARGET: 'reference', INPUT_NO_SHRINK: 'yes' });
    expect(r.code).toBe(4);
    expect(r.stderr).toBe('pouchproof action: the input no-shrink is "yes": give true or false\n');
    expect(r.outputs['exit-code']).toBe('4');
  });

  it('an empty secret (profile-json empty, and profile and target): refused before anything runs, exit code 4, the inputs named', async () => {
    const r = await runStep('empty-secret', { INPUT_PROFILE_JSON: '', INPUT_PROFILE: '', INPUT_TARGET: '' });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^pouchproof action: the inputs profile, profile-json and target are all empty: give exactly one .*target: reference tests the embedded reference on purpose\n$/);
    expect(r.stdout).toBe('');
    expect(r.outputs).toEqual({ 'exit-code': '4', verdict: 'config-error', headline: 'not run: bad configuration' });
    expect(r.summary).toMatch(/^## pouchproof: not run \(bad configuration\)\n\nthe inputs profile, profile-json and target are all empty/);
  });

  it('a profile and a target both given: refused, naming both, exit code 4', async () => {
    const r = await runStep('both', { INPUT_PROFILE_JSON: JSON.stringify(ref.profileDocument), INPUT_PROFILE: '', INPUT_TARGET: ref.url });
    expect(r.code).toBe(4);
    expect(r.stderr).toBe('pouchproof action: the inputs profile-json and target are both given: give exactly one of profile, profile-json and target\n');
    expect(r.outputs['exit-code']).toBe('4');
    expect(r.outputs.verdict).toBe('config-error');
  });

  it('target: reference runs the embedded reference on purpose, under CI too, and the summary says so', async () => {
    const r = await runStep('reference', { CI: 'true', INPUT_TARGET: 'reference', INPUT_ONLY: 'usage.idempotent', INPUT_SEED: '3', INPUT_MAX_DURATION: '60s' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.outputs['exit-code'], r.stderr).toBe('0');
    expect(r.outputs.verdict).toBe('passed');
    expect(r.summary).toContain('**The target is the embedded reference**');
  });

  it('a target that cannot be reached: a report that vouches for nothing and says why, exit-code 3, verdict unreachable, the step summary says so', async () => {
    const r = await runStep('unreachable', { INPUT_TARGET: `http://127.0.0.1:${await closedPort()}` });
    expect(r.code).toBe(0);
    expect(r.outputs['exit-code']).toBe('3');
    expect(r.outputs.verdict).toBe('unreachable');
    expect(r.outputs.headline).toMatch(/^could not vouch for anything: cannot reach the target http:\/\/127\.0\.0\.1:\d+/);
    expect(r.summary).toContain('cannot reach the target');
    expect(r.outputs.junit).toBeDefined();
    expect(r.stderr).toContain('cannot reach the target');
  });

  it('a run that could not vouch (a property its time budget left below its floor): exit-code 2, verdict inconclusive', async () => {
    const r = await runStep('inconclusive', { INPUT_TARGET: 'reference', INPUT_ONLY: 'rejection.violations-rejected', INPUT_SEED: '3', INPUT_MAX_DURATION: '1s' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.outputs['exit-code']).toBe('2');
    expect(r.outputs.verdict).toBe('inconclusive');
  });

  it('an input pouchproof itself refuses (fail-on a kind it does not know): exit-code 4, verdict config-error, no report', async () => {
    const r = await runStep('bad-fail-on', { INPUT_TARGET: 'reference', INPUT_FAIL_ON: 'assumption' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.outputs['exit-code']).toBe('4');
    expect(r.outputs.verdict).toBe('config-error');
    expect(r.outputs.headline).toBe('no report (exit code 4)');
    expect(r.stderr).toContain('--fail-on expects performance; got "assumption"');
  });
});
