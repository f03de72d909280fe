import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import loadK8s from '../../src/cli/commands/load-k8s.ts';
import { indexedJob, K8sError, type K8sJobOptions } from '../../src/load/k8s.ts';
import { pouchproof } from '../cli/spawn-cli.ts';

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
    expect(args).toEqual(expect.arrayContaining(['--seed', '--connections', '6', '--threshold', 'p99<50ms', '--allow-remote']));
    expect(text).not.toMatch(/privateJwk|"d":|authorization/i);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const code = await loadK8s.handler({ shards: 3, image: 'x', scenario: 'usage-flood', duration: '30s', lead: '2m', name: 'pouchproof-load', threshold: [], param: [], 'allow-remote': false });
      expect(code).toBe(2);
      expect(String(err.mock.calls[0]?.[0])).toMatch(/--allow-remote/);
    } finally {
      err.mockRestore();
    }
  });
});
