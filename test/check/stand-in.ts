/**
 * A tiny node:http stand-in for a target, for runner tests: answers PUT /v1/usage/sources/{id}
 * with a valid envelope unless the request's `x-value` header says otherwise (see `decide`).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseProfile, type Profile } from '../../src/target/profile.ts';

export interface StandIn {
  url: string;
  /** Every x-value seen, in arrival order. */
  seen: number[];
  close(): Promise<void>;
}

export type Decision = 'ok' | 'reject' | 'fail' | 'echo-auth';

export async function startStandIn(decide: (value: number, req: IncomingMessage) => Decision): Promise<StandIn> {
  const seen: number[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const value = Number(req.headers['x-value'] ?? '0');
      seen.push(value);
      const d = decide(value, req);
      const send = (status: number, body: unknown) => {
        const text = JSON.stringify(body);
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
      };
      if (d === 'reject') send(400, { ok: false, error: { code: 'bad' } });
      else if (d === 'fail') send(500, { ok: false, error: 'boom' });
      else if (d === 'echo-auth') send(400, { ok: false, error: `bad credentials ${req.headers.authorization ?? ''}` });
      else send(200, { ok: true, data: { stored: 0 }, meta: { request_id: `r${seen.length}` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

export const SECRET = 'Bearer s3cr3t-T0KEN-do-not-leak-4242';

export function standInProfile(url: string, withBrowser = false): Profile {
  return parseProfile({
    name: 'stand-in',
    baseUrl: url,
    ...(withBrowser ? { accounts: { primary: { browser: { headers: { authorization: SECRET } } } } } : {}),
    timeouts: { requestMs: 5000, connectMs: 2000 },
  });
}
