/** src/crypto: JCS, BLAKE3, P-256 device keys, the Service-Signature JWS and its attack catalogue. */
export * from './base64url.ts';
export * from './canonical.ts';
export * from './blake3.ts';
export * from './keys.ts';
export * from './protected-header.ts';
export * from './service-signature.ts';
export * from './attacks.ts';
export * from './attack-grounds.ts';
