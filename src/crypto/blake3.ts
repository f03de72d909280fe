/**
 * BLAKE3 (32-byte default output) through hash-wasm's WebAssembly build: 10 to 20 times faster
 * than the pure-JS @noble/hashes version on large bodies. The hasher is created once by top-level
 * await so that callers can hash synchronously; it is reused, which is safe because `blake3()`
 * never yields between init and digest.
 */
import { createBLAKE3 } from 'hash-wasm';

const hasher = await createBLAKE3();

/** BLAKE3-256 of `data`; a string is hashed as its UTF-8 bytes. */
export function blake3(data: Uint8Array | string): Uint8Array {
  hasher.init();
  // Buffer's UTF-8 encoder is faster than hash-wasm's own string path (about 25% on 64 KiB bodies).
  hasher.update(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  return hasher.digest('binary');
}
