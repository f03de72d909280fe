/**
 * No two source files share a name without a folder that tells them apart (issue 32): every name
 * that src/, properties/ and scenarios/ hold more than once (index.ts aside, a folder's public face)
 * is listed here, each file with what its folder says it is, and no two of them sit in folders of
 * the same name. A new shared name fails until it is listed here, or one of the files is renamed.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../repo-paths.ts';

const SHARED_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'baseline.ts': { 'src/load/gates/baseline.ts': 'the gate: a run against a stored one', 'src/report/load/baseline.ts': 'its section of the load report' },
  'bodies.ts': { 'src/discover/bodies.ts': 'the bodies discovery sends', 'src/load/bodies.ts': 'the load generator’s fast seeded bodies' },
  'body.ts': { 'src/gen/body.ts': 'generating a request body', 'src/reference/body.ts': 'the reference reading one' },
  'boundaries.ts': { 'properties/boundaries.ts': 'the boundary properties', 'src/gen/boundaries.ts': 'the boundary values they use' },
  'capacity.ts': { 'src/load/gates/capacity.ts': 'the capacity search', 'src/report/load/capacity.ts': 'its section of the load report' },
  'commits.ts': { 'properties/commits.ts': 'the commit properties', 'properties/support/commits.ts': 'their helpers', 'src/discover/commits.ts': 'the commit readings discovery probes' },
  'compare.ts': { 'src/cli/commands/compare.ts': 'the command', 'src/compare/compare.ts': 'the comparison itself' },
  'context.ts': { 'src/check/run/context.ts': 'a case’s context in the runner', 'src/reference/context.ts': 'a request’s context in the reference' },
  'examples.ts': { 'src/check/run/examples.ts': 're-running stored cases', 'src/report/examples.ts': 'their words in reports', 'src/session/examples.ts': 'the example database' },
  'grounds.ts': { 'src/check/judge/grounds.ts': 'holding judgements to their grounds', 'src/spec/grounds.ts': 'what a ground is' },
  'histories.ts': { 'properties/support/histories.ts': 'recording histories in properties', 'src/check/run/histories.ts': 'keeping them in a run', 'src/report/histories.ts': 'writing them out' },
  'inventory.ts': { 'src/cli/commands/inventory.ts': 'the command', 'src/spec/inventory.ts': 'the constraint inventory' },
  'json.ts': { 'src/gen/json.ts': 'generating JSON', 'src/report/load/json.ts': 'load.json' },
  'model.ts': { 'src/check/model/linearizability/model.ts': 'the linearizability model', 'src/spec/model.ts': 'the spec model' },
  'mutants.ts': { 'src/cli/commands/mutants.ts': 'the command', 'src/mutants/mutants.ts': 'the mutation self-test' },
  'openapi.ts': { 'src/cli/commands/openapi.ts': 'the command', 'src/spec/openapi.ts': 'the document' },
  'probe.ts': { 'src/cli/commands/probe.ts': 'the command', 'src/session/probe.ts': 'discovery as a session runs it' },
  'proxy.ts': { 'src/target/nemesis/proxy.ts': 'the nemesis proxy', 'src/target/proxy.ts': 'an HTTP proxy to the target' },
  'readings.ts': { 'src/reference/readings.ts': 'the readings the reference serves', 'src/report/readings.ts': 'their table in reports' },
  'render.ts': { 'src/check/run/render.ts': 'the runner’s words', 'src/target/render.ts': 'an exchange’s words' },
  'replay.ts': { 'src/check/run/replay.ts': 'replaying a case', 'src/cli/commands/replay.ts': 'the command' },
  'requests.ts': { 'properties/support/requests.ts': 'requests of properties', 'src/load/requests.ts': 'requests of load scenarios' },
  'result.ts': { 'src/check/run/result.ts': 'a run’s result', 'src/discover/result.ts': 'discovery’s result', 'src/load/result.ts': 'a load run’s result' },
  'run.ts': { 'src/api/run.ts': 'the library’s run', 'src/cli/commands/run.ts': 'the command' },
  'shard.ts': { 'src/load/shards/shard.ts': 'what a shard is', 'src/report/load/shard.ts': 'a shard’s files' },
  'signatures.ts': { 'properties/signatures.ts': 'the signature properties', 'src/discover/signatures.ts': 'the signature readings discovery probes' },
  'target.ts': { 'src/api/target.ts': 'the library’s target option', 'src/session/target.ts': 'the session’s target' },
  'timeline.ts': { 'src/check/model/linearizability/timeline.ts': 'a history’s timeline', 'src/load/stats/timeline.ts': 'throughput over time' },
  'usage-error.ts': { 'src/cli/usage-error.ts': 'the command’s', 'src/session/usage-error.ts': 'the session’s' },
  'usage.ts': {
    'properties/support/usage.ts': 'helpers of the usage properties',
    'properties/usage.ts': 'the usage properties',
    'src/discover/usage.ts': 'the usage readings discovery probes',
    'src/reference/handlers/usage.ts': 'the reference’s handler',
  },
};

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(join(REPO_ROOT, dir))) {
    const p = `${dir}/${name}`;
    if (statSync(join(REPO_ROOT, p)).isDirectory()) sources(p, out);
    else if (/\.(ts|mts|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Name → the files of that name, for every name held more than once (index.ts aside). */
export function sharedNames(files: readonly string[]): Record<string, string[]> {
  const by = new Map<string, string[]>();
  for (const f of files) {
    const name = f.slice(f.lastIndexOf('/') + 1);
    if (name !== 'index.ts') by.set(name, [...(by.get(name) ?? []), f]);
  }
  return Object.fromEntries([...by].filter(([, fs]) => fs.length > 1).map(([n, fs]) => [n, fs.sort()]));
}

const parentOf = (f: string): string => f.split('/').at(-2)!;

describe('source file names', () => {
  const shared = sharedNames(['src', 'properties', 'scenarios'].flatMap((d) => sources(d)));

  it('are shared only as listed, each file with what its folder says', () => {
    const listed = Object.fromEntries(Object.entries(SHARED_NAMES).map(([n, m]) => [n, Object.keys(m).sort()]));
    expect(shared).toEqual(listed);
  });

  it('are told apart by their folders: no two files of one name sit in folders of the same name', () => {
    for (const [name, files] of Object.entries(shared)) expect(new Set(files.map(parentOf)).size, `${name}: ${files.join(', ')}`).toBe(files.length);
  });

  it('are found shared by the check itself, index.ts aside', () => {
    expect(sharedNames(['src/a/x.ts', 'src/b/x.ts', 'src/a/index.ts', 'src/b/index.ts', 'src/c/y.ts'])).toEqual({ 'x.ts': ['src/a/x.ts', 'src/b/x.ts'] });
  });
});
