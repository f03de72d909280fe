/** `startReference(options)`: the embedded reference server for a caller's own tests, with a ready profile. */
import { startReference as startServer, type ReferenceOptions } from '../reference/index.ts';
import type { ProfileDocument } from '../reference/index.ts';
import { parseProfile, type Profile } from '../target/profile.ts';

export interface StartReferenceOptions {
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0: an ephemeral port. */
  readonly port?: number;
  /** Named faults to switch on (`pouchproof mutants` lists them). */
  readonly faults?: readonly string[];
  /** Readings to serve where the spec is silent, by assumption name (unset: the registry's default). */
  readonly readings?: ReferenceOptions['readings'];
}

export interface Reference {
  readonly url: string;
  /** The profile of this server (credentials and device keys included), ready for `run({ profile })`. */
  readonly profile: Profile;
  /** The same as a profile file's JSON, e.g. to write for `pouchproof run --profile`. */
  readonly profileDocument: ProfileDocument;
  close(): Promise<void>;
}

export async function startReference(options: StartReferenceOptions = {}): Promise<Reference> {
  const ref = await startServer({
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    ...(options.faults ? { faults: options.faults } : {}),
    ...(options.readings ? { readings: options.readings } : {}),
  });
  try {
    return { url: ref.url, profile: parseProfile(ref.profile), profileDocument: ref.profile, close: () => ref.close() };
  } catch (e) {
    await ref.close();
    throw e;
  }
}
