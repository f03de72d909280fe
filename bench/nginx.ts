/**
 * Benchmark helpers around Debian's nginx and wrk: nginx answering every request with one canned
 * body (a server far faster than any generator, so the generator is what is measured), pinned to
 * one core with taskset when there is one; wrk against it with a POST body from a Lua script.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findTool } from '../test/tools.ts';

// Found on PATH; nginx also in the sbin directories, which a user's PATH may lack.
const NGINX = findTool(['nginx'], ['/usr/sbin', '/usr/local/sbin']);
const WRK = findTool(['wrk']);
const TASKSET = findTool(['taskset']);

/** Why the nginx comparison cannot run here, or undefined when it can. */
export function missingTools(): string | undefined {
  const missing = [['nginx', NGINX], ['wrk', WRK]].filter(([, p]) => p === undefined).map(([name]) => name);
  return missing.length ? `${missing.join(' and ')} not installed (Debian packages nginx, wrk)` : undefined;
}

function installed(path: string | undefined): string {
  if (path === undefined) throw new Error(missingTools());
  return path;
}

/** `taskset -c CORE` before a command when taskset exists and the machine has that core. */
export function pinned(core: number | undefined, cmd: string, args: readonly string[]): [string, string[]] {
  return core !== undefined && TASKSET ? [TASKSET, ['-c', String(core), cmd, ...args]] : [cmd, [...args]];
}

/** Pins every thread of this process to `cpus` (e.g. "1", or "0-1" to unpin): autocannon and the engine run in it. */
export function pinSelf(cpus: string): boolean {
  return TASKSET !== undefined && spawnSync(TASKSET, ['-a', '-p', '-c', cpus, String(process.pid)]).status === 0;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export interface Nginx {
  readonly url: string;
  stop(): Promise<void>;
}

/** nginx in the foreground, one process (no master, so no user switch), answering `body` to everything. */
export async function startNginx(body: string, core: number | undefined): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), 'pouchproof-nginx-'));
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  const quoted = body.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
  writeFileSync(
    conf,
    `worker_processes 1; master_process off; daemon off; pid ${dir}/nginx.pid; error_log ${dir}/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  keepalive_requests 10000000; keepalive_timeout 60s;
  server {
    listen 127.0.0.1:${port};
    client_max_body_size 10m; client_body_buffer_size 1m;
    location / { default_type application/json; return 200 '${quoted}'; }
  }
}
`,
  );
  const [cmd, args] = pinned(core, installed(NGINX), ['-c', conf, '-e', join(dir, 'error.log')]);
  const child: ChildProcess = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) break;
    const up = await fetch(url, { method: 'POST', body: '{}' }).then((r) => r.ok, () => false);
    if (up) {
      return {
        url,
        stop: async () => {
          child.kill('SIGTERM');
          if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
  throw new Error(`nginx did not start: ${err.trim().split('\n')[0] ?? 'no output'}`);
}

/** wrk's requests/s POSTing `body` with `headers` to `url` (one thread, pinned to `core`). */
export function wrk(o: { url: string; body: string; headers: Readonly<Record<string, string>>; connections: number; seconds: number; core: number | undefined }): number {
  const dir = mkdtempSync(join(tmpdir(), 'pouchproof-wrk-'));
  try {
    const script = join(dir, 'post.lua');
    const lua = (s: string): string => JSON.stringify(s); // a JSON string is a valid Lua string for ASCII text
    writeFileSync(script, `wrk.method = "POST"\nwrk.body = ${lua(o.body)}\n${Object.entries(o.headers).map(([k, v]) => `wrk.headers[${lua(k)}] = ${lua(v)}`).join('\n')}\n`);
    const [cmd, args] = pinned(o.core, installed(WRK), ['-t1', `-c${o.connections}`, `-d${o.seconds}s`, '-s', script, o.url]);
    const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: (o.seconds + 30) * 1000 });
    const m = /Requests\/sec:\s+([0-9.]+)/.exec(r.stdout ?? '');
    if (!m) throw new Error(`wrk printed no rate: ${(r.stderr || r.stdout || '').trim().split('\n')[0]}`);
    return Number(m[1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
