/**
 * A delay link for benchmarks: a TCP proxy that holds every byte for a fixed time in each direction,
 * as a network `delayMs` away would (a 30 ms round trip is `delayMs` 15). Order is kept (timers of
 * equal delay fire in the order they were set); ends and resets are passed on after the same delay.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface DelayLink {
  readonly url: string;
  close(): Promise<void>;
}

function pipeDelayed(from: Socket, to: Socket, delayMs: number): void {
  from.on('data', (chunk: Buffer) => {
    setTimeout(() => {
      if (!to.destroyed) to.write(chunk);
    }, delayMs);
  });
  from.on('end', () => setTimeout(() => to.end(), delayMs));
  from.on('error', () => setTimeout(() => to.destroy(), delayMs));
  from.on('close', () => setTimeout(() => to.destroy(), delayMs + 1));
}

export async function delayLink(upstream: string, delayMs: number): Promise<DelayLink> {
  const up = new URL(upstream);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const target = connect({ host: up.hostname, port: Number(up.port) });
    for (const s of [client, target]) {
      s.setNoDelay(true);
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    pipeDelayed(client, target, delayMs);
    pipeDelayed(target, client, delayMs);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}${up.pathname.replace(/\/$/, '')}`,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
