/**
 * A sharded load run as a Kubernetes Indexed Job: pod i runs `pouchproof load … --shard i/N` (i from
 * JOB_COMPLETION_INDEX, which the Job controller sets in every container), all with one `--start-at`
 * and one `--seed`, so their identifiers stay disjoint. No index is ever retried (a retry would send
 * its share of the load twice); its absence shows in the merge instead. The profile and device key
 * come from a Secret mounted read-only; the shard files come back through `kubectl logs`.
 * Given the profile, every file it names (a device key, the TLS block's CA, certificate and key)
 * is mounted from its own key of the Secret at the same path relative to the profile, so the
 * profile works unchanged inside the pod. A scenario of the user's own (`--scenario ./mine.js`) goes
 * into a ConfigMap printed before the Job, mounted read-only at SCENARIO_DIR, where every pod's
 * `--scenario` names it.
 */
import { dirname, isAbsolute, join, normalize } from 'node:path';
import { shellQuote } from '../../target/curl.ts';
import type { ProfileRef } from '../../target/profile.ts';
import { METRICS_PATH } from '../metrics/live.ts';
import { MAX_SHARDS } from '../shards/shard.ts';

/** One file of the Secret: its key, where it is mounted (relative to PROFILE_DIR), and the local file it is made from. */
export interface SecretMount {
  readonly key: string;
  readonly path: string;
  readonly local: string;
}

export interface K8sJobOptions {
  readonly name: string;
  readonly namespace?: string;
  readonly shards: number;
  readonly image: string;
  /** Secret holding profile.json (and the files it names); absent: the pods need no credentials. */
  readonly secret?: string;
  /** The Secret's files, profile.json first (profileMounts); absent: the Secret is mounted whole, its keys as file names. */
  readonly mounts?: readonly SecretMount[];
  /** Arguments of `pouchproof load` every shard gets (no --shard, --start-at or --profile). */
  readonly loadArgs: readonly string[];
  readonly startAtMs: number;
  /** How long the measured part lasts, to bound the Job. */
  readonly durationMs: number;
  readonly nowMs: number;
  /** Each pod serves live metrics on this port, annotated for a Prometheus scrape; absent: none. */
  readonly metricsPort?: number;
  /** A scenario file of the user's own, carried by the ConfigMap of scenarioConfigMap (its key the file's name). */
  readonly scenarioFile?: ScenarioFile;
}

/** A user's scenario file for the pods: its name (the ConfigMap key, and the file name under SCENARIO_DIR) and its text. */
export interface ScenarioFile {
  readonly name: string;
  readonly text: string;
}

export const PROFILE_DIR = '/etc/pouchproof';
export const PROFILE_FILE = 'profile.json';
/** Where a user's scenario file is mounted in the pods (outside the image's /app, which it never needs to be in). */
export const SCENARIO_DIR = '/scenarios';
/** A ConfigMap holds at most 1 MiB, its name and keys included: a scenario file is kept well inside it. */
export const SCENARIO_FILE_MAX_BYTES = 900 * 1024;
/** The root filesystem is read-only; tsx's cache and the reports go to a scratch volume here. */
const SCRATCH_DIR = '/tmp';
const REPORTS_DIR = `${SCRATCH_DIR}/pouchproof-reports`;
/** The uid/gid of the `node` user of the node:20-slim image. */
const NODE_UID = 1000;
/** Room after the measured window for the checks and the report. */
const AFTER_MS = 300_000;

export class K8sError extends Error {}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function checkK8sOptions(o: K8sJobOptions): void {
  if (!DNS_LABEL.test(o.name) || o.name.length > 52) throw new K8sError(`bad Job name "${o.name}": lowercase letters, digits and '-', at most 52 characters (its pods add a suffix)`);
  if (o.namespace !== undefined && (!DNS_LABEL.test(o.namespace) || o.namespace.length > 63)) throw new K8sError(`bad namespace "${o.namespace}"`);
  if (o.secret !== undefined && (!/^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/.test(o.secret) || o.secret.length > 253)) throw new K8sError(`bad Secret name "${o.secret}"`);
  if (!Number.isInteger(o.shards) || o.shards < 1 || o.shards > MAX_SHARDS) throw new K8sError(`--shards must be an integer from 1 to ${MAX_SHARDS}`);
  if (o.metricsPort !== undefined && (!Number.isInteger(o.metricsPort) || o.metricsPort < 1 || o.metricsPort > 65_535)) throw new K8sError('--metrics-port must be a port number (1 to 65535), or 0 for no metrics endpoint');
  if (!o.image || /\s/.test(o.image)) throw new K8sError('--image names the container image, e.g. registry.example/pouchproof:1.0');
  if (o.scenarioFile) checkScenarioFile(o.scenarioFile);
}

/** A scenario file the image can run and a ConfigMap can hold, or one line saying why not. */
export function checkScenarioFile(f: ScenarioFile): void {
  if (/\.(c|m)?ts$/.test(f.name)) {
    throw new K8sError(`scenario file ${f.name}: the image runs the built JavaScript on Node 20, which cannot load TypeScript: compile it to .js (e.g. npx tsc --module esnext --moduleResolution bundler --target es2022 ${f.name}) and pass the .js`);
  }
  if (!/\.m?js$/.test(f.name)) throw new K8sError(`scenario file ${f.name}: a scenario file for the pods ends in .js or .mjs`);
  if (!SECRET_KEY.test(f.name) || f.name.length > 253) throw new K8sError(`scenario file ${f.name}: its name cannot be a ConfigMap key (letters, digits, '-', '_', '.' only)`);
  const bytes = Buffer.byteLength(f.text, 'utf8');
  if (bytes > SCENARIO_FILE_MAX_BYTES) throw new K8sError(`scenario file ${f.name} is ${bytes} bytes; a ConfigMap holds at most 1 MiB: keep the scenario in one smaller file`);
}

/** The ConfigMap holding a user's scenario file, printed before the Job (`kubectl apply` creates both). */
export function scenarioConfigMap(o: K8sJobOptions): Record<string, unknown> | undefined {
  if (!o.scenarioFile) return undefined;
  checkScenarioFile(o.scenarioFile);
  const labels = { 'app.kubernetes.io/name': 'pouchproof', 'app.kubernetes.io/component': 'load', 'pouchproof/run': o.name };
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: scenarioConfigMapName(o.name), ...(o.namespace ? { namespace: o.namespace } : {}), labels },
    data: { [o.scenarioFile.name]: o.scenarioFile.text },
  };
}

export const scenarioConfigMapName = (job: string): string => `${job}-scenario`;

/** The `--scenario` a pod is given for a user's scenario file: where the ConfigMap puts it. */
export const podScenarioPath = (f: ScenarioFile): string => `${SCENARIO_DIR}/${f.name}`;

/** The Job as a plain object, ready for a YAML writer and a schema validator. */
export function indexedJob(o: K8sJobOptions): Record<string, unknown> {
  checkK8sOptions(o);
  const labels = { 'app.kubernetes.io/name': 'pouchproof', 'app.kubernetes.io/component': 'load', 'pouchproof/run': o.name };
  const args = [
    'load',
    ...o.loadArgs,
    ...(o.secret ? ['--profile', `${PROFILE_DIR}/${PROFILE_FILE}`] : []),
    '--shard', `$(JOB_COMPLETION_INDEX)/${o.shards}`,
    '--start-at', String(o.startAtMs),
    '--report-dir', REPORTS_DIR,
    '--print-shard',
    // Every interface: the scrape comes from outside the pod.
    ...(o.metricsPort ? ['--metrics-listen', `:${o.metricsPort}`] : []),
  ];
  // The annotations the usual Prometheus pod discovery reads (kubernetes_sd_configs, role: pod).
  const scrape = o.metricsPort ? { annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(o.metricsPort), 'prometheus.io/path': METRICS_PATH } } : {};
  const deadline = Math.ceil((Math.max(0, o.startAtMs - o.nowMs) + o.durationMs + AFTER_MS) / 1000);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: o.name, ...(o.namespace ? { namespace: o.namespace } : {}), labels },
    spec: {
      completionMode: 'Indexed',
      completions: o.shards,
      parallelism: o.shards,
      // One attempt per index: a retried shard would send its load twice.
      backoffLimitPerIndex: 0,
      // The other shards still finish when one fails; the merge names the missing one.
      maxFailedIndexes: o.shards,
      // A pod being terminated is not replaced while it may still be sending.
      podReplacementPolicy: 'Failed',
      activeDeadlineSeconds: deadline,
      ttlSecondsAfterFinished: 86_400,
      template: {
        metadata: { labels, ...scrape },
        spec: {
          restartPolicy: 'Never',
          securityContext: { runAsNonRoot: true, runAsUser: NODE_UID, runAsGroup: NODE_UID, fsGroup: NODE_UID },
          containers: [
            {
              name: 'load',
              image: o.image,
              args,
              ...(o.metricsPort ? { ports: [{ name: 'metrics', containerPort: o.metricsPort, protocol: 'TCP' }] } : {}),
              securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
              volumeMounts: volumesOf(o).map((v) => v.mount),
            },
          ],
          volumes: volumesOf(o).map((v) => v.volume),
        },
      },
    },
  };
}

/** The pod's volumes with where each is mounted: scratch space, the profile's Secret, a scenario's ConfigMap. */
function volumesOf(o: K8sJobOptions): Array<{ volume: Record<string, unknown>; mount: Record<string, unknown> }> {
  const items = o.mounts ? { items: o.mounts.map((m) => ({ key: m.key, path: m.path })) } : {};
  return [
    { volume: { name: 'scratch', emptyDir: {} }, mount: { name: 'scratch', mountPath: SCRATCH_DIR } },
    ...(o.secret
      ? [{ volume: { name: 'profile', secret: { secretName: o.secret, defaultMode: 0o440, ...items } }, mount: { name: 'profile', mountPath: PROFILE_DIR, readOnly: true } }]
      : []),
    ...(o.scenarioFile
      ? [{ volume: { name: 'scenario', configMap: { name: scenarioConfigMapName(o.name), defaultMode: 0o444 } }, mount: { name: 'scenario', mountPath: SCENARIO_DIR, readOnly: true } }]
      : []),
  ];
}

/** The commands around the Job, printed as comments above it. */
export function k8sRecipe(o: K8sJobOptions): string[] {
  const ns = o.namespace ? ` -n ${o.namespace}` : '';
  return [
    `pouchproof load: ${o.shards} shards, shared start ${new Date(o.startAtMs).toISOString()} (apply before then; a pod that starts later runs late and is listed as late)`,
    ...(o.secret && o.mounts
      ? [
          'The profile and every file it names go into a Secret, never into this file (each is mounted at its path relative to the profile):',
          `  kubectl create secret generic ${o.secret}${ns} ${o.mounts.map((m) => `--from-file=${m.key}=${shellQuote(m.local)}`).join(' ')}`,
        ]
      : o.secret
        ? [
            'The profile and every file it names (e.g. the device key) go into a Secret, never into this file:',
            `  kubectl create secret generic ${o.secret}${ns} --from-file=${PROFILE_FILE}=./${PROFILE_FILE} --from-file=./device-key.jwk.json`,
            `  (file references in ${PROFILE_FILE} are relative to it: keep them bare file names, or give --profile to mount them at their paths)`,
          ]
        : []),
    ...(o.scenarioFile ? [`The scenario ${o.scenarioFile.name} goes to the pods in the ConfigMap ${scenarioConfigMapName(o.name)} below, mounted at ${SCENARIO_DIR} (apply creates both):`] : []),
    `  kubectl apply${ns} -f job.yaml`,
    `  kubectl wait${ns} --for=condition=complete --timeout=${Math.ceil((Math.max(0, o.startAtMs - o.nowMs) + o.durationMs + AFTER_MS) / 1000)}s job/${o.name}`,
    `  kubectl logs${ns} -l pouchproof/run=${o.name} --tail=-1 --max-log-requests=${Math.max(5, Math.min(o.shards, 100))} > shards.log`,
    `  pouchproof load merge shards.log --expect-shards ${o.shards}`,
  ];
}

/** A Secret key: what Kubernetes allows (letters, digits, `-`, `_`, `.`). */
const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;

/**
 * The Secret's files for a profile at `profilePath` naming `refs`: profile.json, then each file it
 * names, mounted at its path relative to the profile (as the profile reads it inside the pod).
 * A file outside the profile's directory, or a value from an environment variable (which a pod does
 * not have), is refused in one line naming the field.
 */
export function profileMounts(profilePath: string, refs: readonly ProfileRef[]): SecretMount[] {
  const out: SecretMount[] = [{ key: PROFILE_FILE, path: PROFILE_FILE, local: profilePath }];
  for (const r of refs) {
    if ('env' in r) {
      throw new K8sError(`${r.field}: {"env": "${r.env}"} is read from the environment, which the pods do not have: for load k8s give it as {"file": …} beside the profile, mounted from the Secret`);
    }
    if ('command' in r) {
      throw new K8sError(`${r.field}: {"command": ${JSON.stringify(r.command[0] ?? '')}, …} runs a program the pods do not have: for load k8s give the credential as {"file": …} beside the profile, mounted from the Secret`);
    }
    const rel = normalize(r.file).replace(/\\/g, '/');
    if (isAbsolute(r.file) || rel === '..' || rel.startsWith('../')) {
      throw new K8sError(`${r.field}: the file ${JSON.stringify(r.file)} is outside the profile's directory; in the pods the profile's files come from the Secret mounted at ${PROFILE_DIR}: name it by a path relative to the profile`);
    }
    if (out.some((m) => m.path === rel)) continue;
    const key = rel.split('/').join('.');
    if (!SECRET_KEY.test(key) || key.length > 253) throw new K8sError(`${r.field}: the file ${JSON.stringify(r.file)} cannot be a Secret key (letters, digits, '-', '_', '.' and '/' only)`);
    if (out.some((m) => m.key === key)) throw new K8sError(`${r.field}: the file ${JSON.stringify(r.file)} and another one map to the same Secret key ${key}: rename one`);
    out.push({ key, path: rel, local: join(dirname(profilePath), rel) });
  }
  return out;
}
