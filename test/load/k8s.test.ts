import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import loadK8s from '../../src/cli/commands/load-k8s.ts';
import { generateDeviceKey } from '../../src/crypto/keys.ts';
import { indexedJob, K8sError, profileMounts, scenarioConfigMap, type K8sJobOptions } from '../../src/load/k8s/k8s.ts';
import { loadProfile, profileRefs } from '../../src/target/profile.ts';
import { pouchproof } from '../cli/spawn-cli.ts';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { parseAllDocuments } from 'yaml';
import { EXAMPLE, compiledExample } from './example-js.ts';

const dir = mkdtempSync(join(tmpdir(), 'pouchproof-k8s-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NOW = Date.UTC(2026, 0, 1, 12);
const base: K8sJobOptions = {
  name: 'pp-load', shards: 4, image: 'registry.example/pouchproof:1', secret: 'pp-profile',
  loadArgs: ['--scenario', 'commit-throughput', '--duration', '30s', '--rate', '4000/s', '--seed', '9', '--allow-remote'],
  startAtMs: NOW + 120_000, durationMs: 30_000, nowMs: NOW,
};

type Obj = Record<string, unknown>;
const at = (o: unknown, ...path: Array<string | number>): unknown => path.reduce<unknown>((v, k) => (v as Obj | unknown[] | undefined)?.[k as never], o);

describe('load k8s', () => {
  it('passes a load shape to every pod whole (each shard takes its share of every stage), with the duration the stages make', async () => {
    const out = join(dir, 'stages.yaml');
    const code = await loadK8s.handler({
      shards: 4, image: 'reg.example/pp:2', scenario: 'commit-throughput', duration: '30s', lead: '2m', name: 'pouchproof-load', threshold: ['p99<50ms:abort-after=30s'], param: [],
      'allow-remote': true, 'metrics-port': 9464, target: 'https://staging.example', stages: '30s:800/s,2m:8000/s,30s:0/s', out,
    });
    expect(code).toBe(0);
    const job = parse(readFileSync(out, 'utf8')) as Obj;
    const args = at(job, 'spec', 'template', 'spec', 'containers', 0, 'args') as string[];
    expect(args).toEqual(expect.arrayContaining(['--stages', '30s:800/s,2m:8000/s,30s:0/s', '--threshold', 'p99<50ms:abort-after=30s']));
    expect(args).not.toContain('--duration');
    const stages = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await loadK8s.handler({ shards: 2, image: 'x', scenario: 'commit-throughput', duration: '30s', lead: '2m', name: 'n', threshold: [], param: [], 'allow-remote': true, 'metrics-port': 0, stages: '30s:10c,1m:100/s' })).toBe(4);
      expect(String(stages.mock.calls[0]?.[0])).toMatch(/one list shapes one model/);
    } finally {
      stages.mockRestore();
    }
  });

  it('builds an Indexed Job the Kubernetes schemas accept, one attempt per shard', () => {
    const job = indexedJob(base);
    expect(() => new Job(job as never).validate()).not.toThrow();
    expect(at(job, 'spec')).toMatchObject({ completionMode: 'Indexed', completions: 4, parallelism: 4, backoffLimitPerIndex: 0, podReplacementPolicy: 'Failed' });
    expect(at(job, 'spec', 'template', 'spec', 'restartPolicy')).toBe('Never');
    const args = at(job, 'spec', 'template', 'spec', 'containers', 0, 'args') as string[];
    expect(args.join(' ')).toContain(`--shard $(JOB_COMPLETION_INDEX)/4 --start-at ${NOW + 120_000}`);
    expect(args).toContain('--print-shard');
    expect(args.slice(args.indexOf('--profile'), args.indexOf('--profile') + 2)).toEqual(['--profile', '/etc/pouchproof/profile.json']);
    expect(at(job, 'spec', 'template', 'spec', 'volumes', 1, 'secret', 'secretName')).toBe('pp-profile');
  });

  it('annotates its pods for a Prometheus scrape and serves the metrics port on every interface', () => {
    const job = indexedJob({ ...base, metricsPort: 9464 });
    expect(() => new Job(job as never).validate()).not.toThrow();
    expect(at(job, 'spec', 'template', 'metadata', 'annotations')).toEqual({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9464', 'prometheus.io/path': '/metrics' });
    expect(at(job, 'spec', 'template', 'spec', 'containers', 0, 'ports')).toEqual([{ name: 'metrics', containerPort: 9464, protocol: 'TCP' }]);
    const args = at(job, 'spec', 'template', 'spec', 'containers', 0, 'args') as string[];
    expect(args.slice(args.indexOf('--metrics-listen'), args.indexOf('--metrics-listen') + 2)).toEqual(['--metrics-listen', ':9464']);
    // Without a port: no endpoint, no annotation.
    const none = indexedJob(base);
    expect(at(none, 'spec', 'template', 'metadata', 'annotations')).toBeUndefined();
    expect(at(none, 'spec', 'template', 'spec', 'containers', 0, 'args')).not.toContain('--metrics-listen');
    expect(() => indexedJob({ ...base, metricsPort: 70_000 })).toThrow(K8sError);
  });

  it('fails validation when the manifest is broken (the validator is real)', () => {
    const job = indexedJob(base) as Obj;
    const typo = { ...job, spec: { ...(job['spec'] as Obj), completionMode: 'Indexd' } };
    expect(() => new Job(typo as never).validate()).toThrow(/completionMode/);
    const noContainers = { ...job, spec: { ...(job['spec'] as Obj), template: { spec: { restartPolicy: 'Never' } } } };
    expect(() => new Job(noContainers as never).validate()).toThrow(/containers/);
  });

  it('refuses bad names and counts', () => {
    for (const bad of [{ name: 'Bad_Name' }, { shards: 0 }, { shards: 1.5 }, { image: 'a b' }, { namespace: '-x' }, { secret: 'UPPER' }]) {
      expect(() => indexedJob({ ...base, ...bad }), JSON.stringify(bad)).toThrow(K8sError);
    }
  });

  it('prints YAML with the recipe as comments, never the profile, and refuses a remote target without --allow-remote', async () => {
    const out = join(dir, 'job.yaml');
    const r = await pouchproof(['load', 'k8s', '--shards', '3', '--image', 'reg.example/pp:2', '--scenario', 'usage-flood', '--connections', '6', '--threshold', 'p99<50ms', '--allow-remote', '--namespace', 'perf', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text).toMatch(/^# +kubectl create secret generic pouchproof-profile -n perf --from-file=profile\.json=/m);
    expect(text).toMatch(/^# +pouchproof load merge shards\.log --expect-shards 3$/m);
    const job = parse(text) as Obj;
    expect(() => new Job(job as never).validate()).not.toThrow();
    const args = at(job, 'spec', 'template', 'spec', 'containers', 0, 'args') as string[];
    expect(args).toEqual(expect.arrayContaining(['--seed', '--connections', '6', '--threshold', 'p99<50ms', '--allow-remote', '--metrics-listen', ':9464']));
    expect(at(job, 'spec', 'template', 'metadata', 'annotations', 'prometheus.io/scrape')).toBe('true');
    expect(text).not.toMatch(/privateJwk|"d":|authorization/i);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const code = await loadK8s.handler({ shards: 3, image: 'x', scenario: 'usage-flood', duration: '30s', lead: '2m', name: 'pouchproof-load', threshold: [], param: [], 'allow-remote': false, 'metrics-port': 9464 });
      expect(code).toBe(4);
      expect(String(err.mock.calls[0]?.[0])).toMatch(/--allow-remote/);
    } finally {
      err.mockRestore();
    }
  });
});

describe('load k8s --profile: every file the profile names is mounted where the profile reads it', () => {
  const TLS = join(import.meta.dirname, '../fixtures/tls');

  /** A staging profile in its own directory: the device key beside it, the TLS material under certs/. */
  function stagingProfile(extra: Record<string, unknown> = {}): string {
    const home = mkdtempSync(join(dir, 'profile-'));
    mkdirSync(join(home, 'certs'));
    for (const f of ['ca.cert.pem', 'client.cert.pem', 'client.key.enc.pem', 'client.passphrase']) copyFileSync(join(TLS, f), join(home, 'certs', f));
    writeFileSync(join(home, 'device-key.jwk.json'), JSON.stringify(generateDeviceKey().privateJwk));
    const file = join(home, 'staging.json');
    writeFileSync(file, JSON.stringify({
      baseUrl: 'https://staging.example.test',
      accounts: { primary: { device: { deviceId: '3f0e8a52-6c1d-4b7e-9a2f-0c5d8e7b6a14', privateJwk: { file: 'device-key.jwk.json' }, headers: { authorization: 'Bearer inline' } } } },
      tls: { ca: { file: 'certs/ca.cert.pem' }, cert: { file: 'certs/client.cert.pem' }, key: { file: './certs/client.key.enc.pem' }, passphrase: { file: 'certs/client.passphrase' } },
      ...extra,
    }));
    return file;
  }

  it('mounts profile.json and each named file from its own Secret key at its relative path; the profile loads unchanged from the mounted layout', async () => {
    const file = stagingProfile();
    const out = join(dir, 'tls-job.yaml');
    const r = await pouchproof(['load', 'k8s', '--shards', '2', '--image', 'reg.example/pp:3', '--scenario', 'usage-flood', '--rate', '100/s', '--allow-remote', '--profile', file, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    const job = parse(text) as Obj;
    expect(() => new Job(job as never).validate()).not.toThrow();
    const items = at(job, 'spec', 'template', 'spec', 'volumes', 1, 'secret', 'items');
    expect(items).toEqual([
      { key: 'profile.json', path: 'profile.json' },
      { key: 'device-key.jwk.json', path: 'device-key.jwk.json' },
      { key: 'certs.ca.cert.pem', path: 'certs/ca.cert.pem' },
      { key: 'certs.client.cert.pem', path: 'certs/client.cert.pem' },
      { key: 'certs.client.key.enc.pem', path: 'certs/client.key.enc.pem' },
      { key: 'certs.client.passphrase', path: 'certs/client.passphrase' },
    ]);
    const home = dirname(file);
    const command = text.split('\n').find((l) => l.includes('kubectl create secret'))!;
    expect(command).toContain(`--from-file=profile.json='${file}'`);
    expect(command).toContain(`--from-file=certs.ca.cert.pem='${join(home, 'certs/ca.cert.pem')}'`);
    expect(command).toContain(`--from-file=certs.client.key.enc.pem='${join(home, 'certs/client.key.enc.pem')}'`);
    expect(text).not.toMatch(/BEGIN|PRIVATE KEY|pouchproof-test-passphrase|Bearer inline/);
    // What the kubelet makes of the Secret: each key's file at its item path under the mount point.
    const pod = mkdtempSync(join(dir, 'pod-'));
    for (const m of profileMounts(file, profileRefs(JSON.parse(readFileSync(file, 'utf8'))))) {
      mkdirSync(dirname(join(pod, m.path)), { recursive: true });
      copyFileSync(m.local, join(pod, m.path));
    }
    const inPod = await loadProfile(join(pod, 'profile.json'), {});
    expect(inPod.tls?.cert).toBe(readFileSync(join(TLS, 'client.cert.pem'), 'utf8').replace(/\n$/, ''));
    expect(inPod.tls?.origins.key).toEqual({ kind: 'file', path: join(pod, 'certs/client.key.enc.pem') });
    expect(inPod.accounts.primary.device?.privateKey).toBeDefined();
  });

  it('refuses what a pod cannot have: a variable of this environment, a file outside the profile\'s directory', () => {
    expect(() => profileMounts('/p/staging.json', [{ field: 'tls.key', env: 'CLIENT_KEY' }])).toThrow(/^tls\.key: \{"env": "CLIENT_KEY"\} is read from the environment, which the pods do not have: for load k8s give it as \{"file": …\}/);
    expect(() => profileMounts('/p/staging.json', [{ field: 'tls.ca', file: '/etc/ssl/corp-ca.pem' }])).toThrow(/^tls\.ca: the file "\/etc\/ssl\/corp-ca\.pem" is outside the profile's directory; in the pods the profile's files come from the Secret mounted at \/etc\/pouchproof/);
    expect(() => profileMounts('/p/staging.json', [{ field: 'tls.ca', file: '../ca.pem' }])).toThrow(/outside the profile's directory/);
  });

  it('says so in one line from the command, before printing anything', async () => {
    const file = stagingProfile({ headers: { 'x-route': { env: 'ROUTE' } } });
    const r = await pouchproof(['load', 'k8s', '--shards', '2', '--image', 'reg.example/pp:3', '--scenario', 'usage-flood', '--allow-remote', '--profile', file]);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toMatch(/^pouchproof: headers\.x-route: \{"env": "ROUTE"\} is read from the environment/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('load k8s --scenario FILE: a scenario of one\'s own goes to the pods in a ConfigMap', () => {
  it('prints the ConfigMap holding the file before the Job, which mounts it read-only and names it in every pod\'s --scenario', async () => {
    const js = compiledExample(dir);
    const out = join(dir, 'own.yaml');
    const code = await loadK8s.handler({
      shards: 2, image: 'reg.example/pp:4', scenario: js, duration: '30s', lead: '2m', name: 'pp-own', namespace: 'perf', threshold: [], param: ['pouches=1000'],
      'allow-remote': true, 'metrics-port': 0, target: 'https://staging.example', rate: '500/s', out,
    });
    expect(code).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text).toMatch(/^# The scenario mixed-commits\.js goes to the pods in the ConfigMap pp-own-scenario below, mounted at \/scenarios/m);
    const [cm, job] = parseAllDocuments(text).map((d) => d.toJS() as Obj);
    expect(() => new ConfigMap(cm as never).validate()).not.toThrow();
    expect(() => new Job(job as never).validate()).not.toThrow();
    expect(at(cm, 'metadata')).toMatchObject({ name: 'pp-own-scenario', namespace: 'perf' });
    // The file as compiled, byte for byte: what the pods import is what was checked here.
    expect(at(cm, 'data', 'mixed-commits.js')).toBe(readFileSync(js, 'utf8'));
    const pod = at(job, 'spec', 'template', 'spec') as Obj;
    expect(at(pod, 'volumes')).toEqual(expect.arrayContaining([{ name: 'scenario', configMap: { name: 'pp-own-scenario', defaultMode: 0o444 } }]));
    expect(at(pod, 'containers', 0, 'volumeMounts')).toEqual(expect.arrayContaining([{ name: 'scenario', mountPath: '/scenarios', readOnly: true }]));
    const args = at(pod, 'containers', 0, 'args') as string[];
    expect(args.slice(args.indexOf('--scenario'), args.indexOf('--scenario') + 2)).toEqual(['--scenario', '/scenarios/mixed-commits.js']);
    expect(args.slice(args.indexOf('--param'), args.indexOf('--param') + 2)).toEqual(['--param', 'pouches=1000']);
    // Without a file: no ConfigMap, no mount.
    expect(scenarioConfigMap(base)).toBeUndefined();
    expect(JSON.stringify(at(indexedJob(base), 'spec', 'template', 'spec'))).not.toMatch(/configMap|\/scenarios/);
  });

  it('refuses, in one line before printing anything, a TypeScript file (the image has no TypeScript loader), a file without a scenario and a parameter it does not declare', async () => {
    const none = join(dir, 'none.mjs');
    writeFileSync(none, 'export const x = 1;\n');
    const js = compiledExample(dir);
    const cases: Array<[string, string[], RegExp]> = [
      [EXAMPLE, [], /^pouchproof: scenario file mixed-commits\.ts: the image runs the built JavaScript on Node 20, which cannot load TypeScript: compile it to \.js/],
      [none, [], /has no scenario as its default export/],
      [js, ['colour=red'], /^pouchproof: scenario mixed-commits has no parameter "colour"/],
      [join(dir, 'missing.js'), [], /^pouchproof: cannot read scenario file .*missing\.js \(ENOENT\)$/],
    ];
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const outWrite = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      for (const [scenario, param, message] of cases) {
        err.mockClear();
        const code = await loadK8s.handler({ shards: 2, image: 'x', scenario, duration: '30s', lead: '2m', name: 'n', threshold: [], param, 'allow-remote': true, 'metrics-port': 0, target: 'https://staging.example' });
        expect(code, scenario).toBe(4);
        expect(err.mock.calls.map((c) => String(c[0])).join('').trim()).toMatch(message);
      }
      expect(outWrite).not.toHaveBeenCalled();
    } finally {
      err.mockRestore();
      outWrite.mockRestore();
    }
  });
});
