/** The spec model: the single source of truth every other layer reads. */
export * from './limits.ts';
export * from './patterns.ts';
export * from './model.ts';
export * from './constraints.ts';
export * from './resources.ts';
export * from './endpoints.ts';
export * from './zod.ts';
export * from './inventory.ts';
export * from './assumptions.ts';
export * from './usage-merge.ts';
export * from './grounds.ts';
export * from './wording.ts';
export * from './response-size.ts';
export * from './narrow.ts';
export * from './openapi.ts';
