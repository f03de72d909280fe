/**
 * TargetClient overhead: calls per second and latency against a trivial local server, unsigned
 * (usage) and signed (device commit), at the profile's connection count.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateDeviceKey } from '../src/crypto/keys.ts';
import { TargetClient, type CallOptions } from '../src/target/client.ts';
import { parseProfile } from '../src/target/profile.ts';

const ENVELOPE = JSON.stringify({ ok: true, data: { stored: 1 }, meta: { request_id: 'r' } });

async function measure(client: TargetClient, o: CallOptions, calls: number, concurrency: number): Promise<string> {
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls) {
        next++;
        const ex = await client.call(o);
        latencies.push(ex.timings.totalMs);
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(2);
  return `${(calls / secs).toFixed(0)} calls/s, p50 ${q(0.5)} ms, p99 ${q(0.99)} ms (${calls} calls, ${concurrency} in flight)`;
}

export async function run(): Promise<void> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(ENVELOPE) });
      res.end(ENVELOPE);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const key = generateDeviceKey();
  const profile = parseProfile({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    accounts: {
      primary: { device: { headers: { authorization: 'Bearer x' }, deviceId: '3f0e8a52-6c1d-4b7e-9a2f-0c5d8e7b6a14', privateJwk: key.privateJwk as { kty: string } } },
    },
    connections: 16,
  });
  const client = new TargetClient(profile);
  try {
    const usage: CallOptions = { endpoint: 'reportUsage', params: { sourceId: '0'.repeat(32) }, body: { rows: [] } };
    await measure(client, usage, 200, 16); // warm-up
    console.log(`unsigned usage call: ${await measure(client, usage, 3000, 16)}`);
    const commit: CallOptions = {
      endpoint: 'commitOperations',
      params: { pouchId: '8a6c4e2b-1d3f-4a5b-8c7d-9e0f1a2b3c4d' },
      body: { operation_id: '8a6c4e2b-1d3f-4a5b-8c7d-9e0f1a2b3c4d', epoch: '8a6c4e2b-1d3f-4a5b-8c7d-9e0f1a2b3c4d', ops: [] },
    };
    console.log(`signed commit call:   ${await measure(client, commit, 3000, 16)} (verdicts are protocol-errors: the stub's data is usage's)`);
  } finally {
    await client.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}
