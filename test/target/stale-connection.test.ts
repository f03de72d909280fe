/**
 * A keep-alive connection the target closes as idle while a request is already on its way (the race
 * RFC 9112 §9.6 describes: from the server's side the connection was idle, from the client's a
 * request is in progress). It happens when an event loop is held up past the keep-alive timeout, as
 * on a loaded CI machine. The test server plays the race out: a request marked `stale` arriving on a
 * connection that served before is met by the connection closing, unhandled. The request never
 * reached the handler, so it is sent again, once, on a fresh connection, and the exchange says so. A
 * connection closed before any response on a fresh connection is the target's doing, and stays a
 * transport failure, sent once.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TargetClient } from '../../src/target/client.ts';
import { parseProfile } from '../../src/target/profile.ts';

let server: Server;
let handled = 0;
let base = '';

beforeAll(async () => {
  const served = new WeakSet<object>();
  server = createServer((req, res) => {
    if (req.url?.includes('stale') && served.has(req.socket)) return void req.socket.destroy();
    served.add(req.socket);
    req.resume();
    req.on('end', () => {
      handled++;
      if (req.url?.includes('drop')) return void req.socket.destroy();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, data: { stored: 0 }, meta: { request_id: 'r' } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const call = (client: TargetClient, sourceId: string) => client.call({ endpoint: 'reportUsage', params: { sourceId }, body: { rows: [] } });

describe('a keep-alive connection closed as idle under a request', () => {
  it('is sent again once on a fresh connection, and the exchange says so', async () => {
    const client = new TargetClient(parseProfile({ baseUrl: base, connections: 1 }));
    try {
      expect((await call(client, 'a'.repeat(32))).verdict).toBe('accepted');
      const before = handled;
      const ex = await call(client, 'stale'.padEnd(32, '0'));
      expect(ex.verdict, ex.reason).toBe('accepted');
      expect(ex.resent).toMatch(/before a response, on a keep-alive connection that had served earlier requests .*: sent again on a fresh connection/);
      // Handled once: the first copy never reached the handler.
      expect(handled - before).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('a connection dropped under a request on a fresh connection stays a transport failure, sent once', async () => {
    const client = new TargetClient(parseProfile({ baseUrl: base, connections: 1 }));
    try {
      const before = handled;
      const ex = await call(client, 'drop'.padEnd(32, '0'));
      expect(ex.verdict).toBe('transport-error');
      expect(ex.reason).toBe('connection closed by the target before a response');
      expect(ex.resent).toBeUndefined();
      expect(handled - before).toBe(1);
    } finally {
      await client.close();
    }
  });
});
