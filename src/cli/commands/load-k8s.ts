import { randomInt } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import type { Argv } from 'yargs';
import { stringify } from 'yaml';
import { asUsage, defineCommand, UsageError, type FlagsOf } from '../command.ts';
import { oneLineErrors } from '../one-line-errors.ts';
import { numberOption } from '../args.ts';
import { checkSeed } from '../../session/index.ts';
import { basename } from 'node:path';
import { SCENARIO_NAMES, loadScenario } from '../../../scenarios/index.ts';
import {
  K8sError,
  checkScenarioFile,
  indexedJob,
  k8sRecipe,
  podScenarioPath,
  profileMounts,
  scenarioConfigMap,
  type K8sJobOptions,
  type ScenarioFile,
  type SecretMount,
  isScenarioPath,
  resolveParams,
  parseThreshold,
  parseDuration,
  parseRate,
  formatStages,
  parseStages,
  stagesDurationMs,
  DEFAULT_METRICS_PORT,
} from '../../load/index.ts';
import { parseParams } from './load.ts';
import { findJsonSyntaxError } from '../../target/json-syntax.ts';
import { profileFileIssues, profileRefs } from '../../target/profile.ts';
import { parseJson } from '../../spec/index.ts';

/** Pods need time to be scheduled and pull the image before the shared start. */
const DEFAULT_LEAD = '2m';

/** The options of `load k8s`. */
function k8sOptions(y: Argv) {
  return y
    .option('shards', { type: 'number', demandOption: true, describe: 'N: pods, each one shard' })
    .option('image', { type: 'string', demandOption: true, describe: 'the pouchproof image (deploy/Dockerfile)' })
    .option('secret', { type: 'string', describe: 'Secret holding profile.json and the files it names (default pouchproof-profile, unless --target)' })
    .option('namespace', { type: 'string', describe: 'namespace of the Job' })
    .option('name', { type: 'string', default: 'pouchproof-load', describe: 'name of the Job' })
    .option('lead', { type: 'string', default: DEFAULT_LEAD, describe: 'the shared start is now plus this' })
    .option('out', { type: 'string', describe: 'write the YAML to this file instead of stdout' })
    .option('scenario', { type: 'string', demandOption: true, describe: `the scenario to run: ${SCENARIO_NAMES.join(', ')}, or a .js file of your own (sent to the pods in a ConfigMap)` })
    .option('target', { type: 'string', describe: 'target base URL, when the pods need no credentials' })
    .option('profile', { type: 'string', describe: 'the profile the pods use: the Secret command and the mounts then cover every file it names (at the same relative paths)' })
    .option('duration', { type: 'string', default: '30s', describe: 'how long to measure' })
    .option('max-requests', numberOption('stop after this many requests in all'))
    .option('rate', { type: 'string', describe: 'open model: requests per second in all (each shard sends its share)' })
    .option('stages', { type: 'string', describe: "a load shape in all, e.g. '30s:800/s,2m:8000/s,30s:0/s' or '30s:40c,1m:40c' (each shard takes its share of every stage); sets the duration" })
    .option('connections', numberOption('closed model: connections in all (each shard opens its share)'))
    .option('workers', numberOption('worker threads per pod'))
    .option('threshold', { type: 'string', array: true, default: [], describe: "judged by 'load merge' on the whole; one with ':abort' also stops each shard that breaks it on its own share" })
    .option('param', { type: 'string', array: true, default: [], describe: 'scenario parameter name=value' })
    .option('seed', numberOption('seed shared by the shards (default: drawn now)'))
    .option('allow-remote', { type: 'boolean', default: false, describe: 'required: the pods load a target that is not their loopback' })
    .option('metrics-port', { type: 'number', default: DEFAULT_METRICS_PORT, describe: 'each pod serves live Prometheus metrics on this port, with the prometheus.io scrape annotations (0: none)' });
}

/** `pouchproof load k8s`: an Indexed Job running a sharded load run, as YAML. */
const loadK8s = defineCommand({
  describe: 'print a Kubernetes Indexed Job that runs a load scenario in N shards (then: kubectl logs … | load merge)',
  examples: [
    ['pouchproof load k8s --shards 8 --image registry.example/pouchproof:0.1 --scenario commit-throughput --rate 8000/s --duration 2m --target https://staging.example --allow-remote > job.yaml', 'eight pods, 1000 req/s each, from one shared start'],
    ['pouchproof load k8s --shards 4 --image registry.example/pouchproof:0.1 --profile staging.json --scenario usage-flood --rate 2000/s --allow-remote --out job.yaml', 'the profile and the files it names (device key, TLS CA, client certificate) mounted from one Secret'],
  ],
  builder: k8sOptions,
  handler: oneLineErrors((argv) => handle(argv), [UsageError, K8sError]),
});

async function handle(argv: FlagsOf<typeof k8sOptions>): Promise<number> {
  if (!argv['allow-remote']) throw new UsageError('the pods load a target that is not on their loopback interface: pass --allow-remote to say so');
  const { duration, lead, rate, threshold: thresholds, shards, connections, target, profile, out, stages: shape } = argv;
  const stages = shape !== undefined ? asUsage(() => parseStages(shape)) : undefined;
  if (stages && rate !== undefined) throw new UsageError('--stages shapes the rate itself: leave out --rate');
  const durationMs = stages ? stagesDurationMs(stages.stages) : asUsage(() => parseDuration(duration));
  const leadMs = asUsage(() => parseDuration(lead));
  if (rate !== undefined) asUsage(() => parseRate(rate));
  asUsage(() => thresholds.map(parseThreshold));
  if (connections !== undefined && rate === undefined && connections < shards) throw new UsageError(`--connections ${connections} cannot be split over ${shards} shards`);
  if (target !== undefined && profile !== undefined) throw new UsageError('give --profile or --target, not both');
  const secret = argv.secret ?? (target === undefined ? 'pouchproof-profile' : undefined);
  const mounts = profile !== undefined ? await mountsOf(profile) : undefined;
  const scenarioFile = await scenarioOf(argv.scenario, argv.param);
  // One seed for every shard: their worker seeds are then distinct by construction.
  const seed = argv.seed !== undefined ? checkSeed(argv.seed) : randomInt(0x7fffffff);
  const opt = (name: 'target' | 'max-requests' | 'rate' | 'connections' | 'workers'): string[] => (argv[name] !== undefined ? [`--${name}`, String(argv[name])] : []);
  const loadArgs = [
    '--scenario', scenarioFile ? podScenarioPath(scenarioFile) : argv.scenario,
    ...opt('target'),
    ...(stages ? ['--stages', formatStages(stages)] : ['--duration', duration]),
    ...opt('max-requests'), ...opt('rate'), ...opt('connections'), ...opt('workers'),
    ...thresholds.flatMap((t) => ['--threshold', t]),
    ...argv.param.flatMap((p) => ['--param', p]),
    '--seed', String(seed),
    '--allow-remote',
  ];
  const nowMs = Date.now();
  const o: K8sJobOptions = {
    name: argv.name,
    ...(argv.namespace !== undefined ? { namespace: argv.namespace } : {}),
    shards,
    image: argv.image,
    ...(secret ? { secret } : {}),
    ...(mounts ? { mounts } : {}),
    loadArgs,
    startAtMs: nowMs + leadMs,
    durationMs,
    nowMs,
    ...(argv['metrics-port'] !== 0 ? { metricsPort: argv['metrics-port'] } : {}),
    ...(scenarioFile ? { scenarioFile } : {}),
  };
  const job = indexedJob(o);
  const configMap = scenarioConfigMap(o);
  const yaml = `${k8sRecipe(o).map((l) => `# ${l}`).join('\n')}\n${configMap ? `${yamlDoc(configMap)}---\n` : ''}${yamlDoc(job)}`;
  if (out !== undefined) {
    await writeFile(out, yaml, 'utf8').catch((e: Error) => Promise.reject(new UsageError(`cannot write ${out}: ${e.message}`)));
    process.stderr.write(`pouchproof: Job written to ${out}; shared start ${new Date(o.startAtMs).toISOString()}\n`);
  } else process.stdout.write(yaml);
  return 0;
}
/** One YAML document, as kubectl reads it (no line folding, no anchors). */
function yamlDoc(x: object): string {
  return stringify(x, { lineWidth: 0, aliasDuplicateObjects: false });
}

/**
 * The scenario checked here, before the pods start: a built-in name or a file, whose declaration and
 * `--param` values must hold. A file is returned to go into the ConfigMap.
 */
async function scenarioOf(nameOrPath: string, params: readonly string[]): Promise<ScenarioFile | undefined> {
  let file: ScenarioFile | undefined;
  if (isScenarioPath(nameOrPath)) {
    const text = await readFile(nameOrPath, 'utf8').catch((e: NodeJS.ErrnoException) => Promise.reject(new UsageError(`cannot read scenario file ${nameOrPath} (${e.code ?? 'unreadable'})`)));
    file = { name: basename(nameOrPath), text };
    // The image's own limits (no TypeScript, one file a ConfigMap holds) before what loading it here says.
    checkScenarioFile(file);
  }
  const { scenario } = await loadScenario(nameOrPath).catch((e: Error) => Promise.reject(new UsageError(e.message)));
  asUsage(() => resolveParams(scenario, parseParams(params)));
  return file;
}

/** The Secret's files for the profile at `path`: it is read (never its secrets) to learn which files it names. */
async function mountsOf(path: string): Promise<SecretMount[]> {
  const text = await readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => Promise.reject(new UsageError(`cannot read profile ${JSON.stringify(path)} (${e.code ?? 'unreadable'})`)));
  const clean = text.replace(/^\uFEFF/, '');
  const syntax = findJsonSyntaxError(clean);
  if (syntax) throw new UsageError(`${path}: invalid JSON at line ${syntax.line}, column ${syntax.column}: ${syntax.problem}`);
  const json = parseJson(clean);
  const issue = profileFileIssues(json)[0];
  if (issue) throw new UsageError(`${path}: ${issue}`);
  return profileMounts(path, profileRefs(json));
}

export default loadK8s;
