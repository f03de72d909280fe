/**
 * The reference under load: signed 1-op and 50-op commits per second, next to a bare node:http JSON
 * echo as the physical reference on the same machine, with the ratio. Each server runs in its own
 * child process (one core each side); autocannon drives it from here with pre-signed, distinct
 * commits (each a create of a new artifact), so the client's signing cost stays out of the figures.
 *
 * Child mode: run with POUCHPROOF_BENCH_CHILD=echo|reference, the module starts that server and
 * prints its URL instead.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { privateKeyFromJwk } from '../src/crypto/keys.ts';
import { signServiceSignature } from '../src/crypto/service-signature.ts';
import { generateFixture, parseFixture, startReference, type Fixture } from '../src/reference/index.ts';
import { SIGNATURE_HEADER } from '../src/spec/index.ts';

const SECONDS = Number(process.env['POUCHPROOF_BENCH_SECONDS'] ?? 4);
const CONNECTIONS = 16;
const ENVELOPE = 'ZW52ZWxvcGU'.repeat(24); // a few hundred characters, a small encrypted record

async function child(kind: string): Promise<void> {
  let url: string;
  if (kind === 'echo') {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let out: string;
        try {
          out = JSON.stringify({ ok: true, data: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown, meta: { request_id: randomUUID() } });
        } catch {
          out = '{"ok":false}';
        }
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
        res.end(out);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  } else {
    const fixture = parseFixture(JSON.parse(process.env['POUCHPROOF_BENCH_FIXTURE'] ?? 'null'));
    url = (await startReference({ fixture })).url;
  }
  process.stdout.write(`${url}\n`);
  process.on('SIGTERM', () => process.exit(0));
}

function startChild(kind: 'echo' | 'reference', fixture?: Fixture): Promise<{ url: string; proc: ChildProcess }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, POUCHPROOF_BENCH_CHILD: kind, ...(fixture ? { POUCHPROOF_BENCH_FIXTURE: JSON.stringify(fixture) } : {}) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve({ url: line.trim(), proc });
    });
    proc.on('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
}

interface Prepared {
  path: string;
  body: string;
  signature: string;
}

function prepare(fixture: Fixture, count: number, opsPer: number): Prepared[] {
  const key = privateKeyFromJwk(fixture.primary.device.privateJwk);
  const kid = fixture.primary.device.deviceId;
  const path = `/v1/pouches/${randomUUID()}/operations`;
  return Array.from({ length: count }, () => {
    const body = {
      operation_id: randomUUID(),
      epoch: randomUUID(),
      ops: Array.from({ length: opsPer }, () => ({
        type: 'create',
        artifact_id: randomUUID(),
        revision_id: randomUUID(),
        base_revision_id: null,
        key_gen: 1,
        envelope: ENVELOPE,
        signature: 'c2lnbmF0dXJlLW9mLXRoZS1vcGVyYXRpb24',
        signer_member_id: fixture.primary.device.memberId,
        blob_ids: [randomUUID()],
      })),
    };
    return { path, body: JSON.stringify(body), signature: signServiceSignature({ body, kid, privateKey: key }) };
  });
}

interface Measured {
  rps: number;
  non2xx: number;
  p99: number;
  cycled: boolean;
}

async function measure(url: string, token: string, prepared: Prepared[]): Promise<Measured> {
  let i = 0;
  let cycled = false;
  const r = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [
      {
        method: 'POST',
        setupRequest: (req) => {
          if (i >= prepared.length) {
            cycled = true;
            i = 0;
          }
          const p = prepared[i++]!;
          return {
            ...req,
            path: p.path,
            body: p.body,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, [SIGNATURE_HEADER]: p.signature },
          };
        },
      },
    ],
  });
  return { rps: r.requests.average, non2xx: r.non2xx, p99: r.latency.p99, cycled };
}

export async function run(): Promise<void> {
  const fixture = generateFixture();
  const token = fixture.primary.device.token;
  process.stdout.write(`preparing signed commits (${SECONDS}s per measurement, ${CONNECTIONS} connections)…\n`);
  const one = prepare(fixture, Math.round(SECONDS * 6000), 1);
  const fifty = prepare(fixture, Math.round(SECONDS * 1000), 50);
  const echo = await startChild('echo');
  const ref = await startChild('reference', fixture);
  try {
    await measure(echo.url, token, one.slice(0, 2000)); // warm-up
    const e = await measure(echo.url, token, one);
    const r1 = await measure(ref.url, token, one);
    const r50 = await measure(ref.url, token, fifty);
    const row = (name: string, m: Measured, extra = ''): string =>
      `${name.padEnd(34)} ${m.rps.toFixed(0).padStart(8)} req/s  p99 ${String(m.p99).padStart(4)} ms  non-2xx ${m.non2xx}${m.cycled && name.startsWith('reference') ? '  (ran out of bodies: the rest were replays)' : ''}${extra}`;
    console.log(row('node:http JSON echo (1-op body)', e));
    console.log(row('reference, signed 1-op commit', r1, `  ratio ${(r1.rps / e.rps).toFixed(2)}× echo`));
    console.log(row('reference, signed 50-op commit', r50, `  ratio ${(r50.rps / e.rps).toFixed(2)}× echo, ${(r50.rps * 50).toFixed(0)} ops/s`));
    console.log(`target: signed 1-op commits ≥ 0.5× echo → ${r1.rps / e.rps >= 0.5 ? 'met' : 'NOT met'}`);
  } finally {
    echo.proc.kill('SIGTERM');
    ref.proc.kill('SIGTERM');
  }
}

const childKind = process.env['POUCHPROOF_BENCH_CHILD'];
if (childKind) await child(childKind);
