/**
 * The embedded reference as the target layer asks for it (src/target/resolve.ts's EmbeddedStarter):
 * started on a free loopback port with the chosen faults, readings and unnamed behaviours. The
 * target layer never imports the reference; the session, the command and the load checks inject
 * this starter. It is imported on its own, not through the reference's index, and loads the server
 * lazily, so that a run against a profile never pays for the reference's modules.
 */
import type { Readings } from '../spec/index.ts';
import type { RunningReference } from './server.ts';

export interface EmbeddedOptions {
  readonly faults?: readonly string[];
  readonly readings?: Readings;
  readonly unnamed?: readonly string[];
}

export async function startEmbeddedReference(o: EmbeddedOptions): Promise<RunningReference> {
  const { startReference } = await import('./server.ts');
  return startReference({
    host: '127.0.0.1',
    port: 0,
    ...(o.faults ? { faults: o.faults } : {}),
    ...(o.readings ? { readings: o.readings } : {}),
    ...(o.unnamed ? { unnamed: o.unnamed } : {}),
  });
}

/** What `resolveTarget` and `runLoad` take to start the embedded reference. */
export const EMBEDDED_REFERENCE = Object.freeze({ startEmbedded: startEmbeddedReference });
