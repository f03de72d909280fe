/**
 * The model's types: `Infer` of each resource and endpoint is the shape the spec's tables state, and
 * `toZod` returns a schema whose `z.infer` is that same type. Most of this file is checked by `tsc`
 * (the `Equal` assertions and the `@ts-expect-error` lines fail the typecheck when they stop holding);
 * the runtime part parses generated values and reads them through the inferred types.
 */
import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { validRequest, validResponse } from '../../src/gen/index.ts';
import {
  ENDPOINT_BY_ID,
  type OperationResult,
  type PouchOperation,
  type Roster,
  type UsageRow,
  commitOperations,
  listedParams,
  type reportUsage,
  schemasOf,
  toZod,
  type CommitBody,
  type EndpointBody,
  type EndpointData,
  type EndpointParams,
  type EndpointResponse,
  type Infer,
  type OpType,
  type PasskeyBody,
  type PouchOperationValue,
  type RevokeBody,
  type UsageBody,
  type UsageRowValue,
} from '../../src/spec/index.ts';

/** Exact type equality (not mere assignability in one direction). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;

type ZodInfer<N extends Parameters<typeof toZod>[0]> = z.infer<ReturnType<typeof toZod<N>>>;

/** 2.5 as the table states it: `base_revision_id` required but nullable; three optional nullable uuids. */
interface ExpectedOp {
  type: OpType;
  artifact_id: string;
  revision_id: string;
  base_revision_id: string | null;
  merge_parent_id?: string | null;
  name_index?: string | null;
  conflict_id?: string | null;
  key_gen: number;
  envelope: string;
  signature: string;
  signer_member_id: string;
  blob_ids: string[];
}
type Exactly<T> = { [K in keyof T]: T[K] };

// Checked by tsc (`npm test` typechecks first): each line breaks the typecheck when it stops holding.
export type ResourceChecks = [
  Expect<Equal<PouchOperationValue, Exactly<ExpectedOp>>>,
  Expect<Equal<ZodInfer<typeof PouchOperation>, PouchOperationValue>>,
  Expect<Equal<UsageRowValue, { input: number; output: number; cache_read: number; cache_write: number; day: string; assistant: string; model: string }>>,
  Expect<Equal<ZodInfer<typeof UsageRow>, UsageRowValue>>,
  Expect<Equal<Infer<typeof OperationResult>, { status: 'applied'; artifact_id: string; revision_id: string; seq: number; high_water: number }>>,
  Expect<Equal<ZodInfer<typeof Roster>, Infer<typeof Roster>>>,
  Expect<Equal<Infer<typeof Roster>['statements'][number], { statement: string; signature: string }>>,
  // Optional, not nullable: `?:` without `| null`.
  Expect<Equal<RevokeBody['reason'], string | undefined>>,
];

export type EndpointChecks = [
  Expect<Equal<CommitBody, { operation_id: string; epoch: string; ops: PouchOperationValue[] }>>,
  Expect<Equal<UsageBody, { rows: UsageRowValue[] }>>,
  Expect<Equal<EndpointParams<'commitOperations'>, { pouchId: string }>>,
  Expect<Equal<EndpointParams<'reportUsage'>, { sourceId: string }>>,
  // biome-ignore lint/complexity/noBannedTypes: an endpoint without path parameters has exactly `{}`
  Expect<Equal<EndpointParams<'changeUnlock'>, {}>>,
  Expect<Equal<EndpointData<'reportUsage'>, { stored: number }>>,
  Expect<Equal<EndpointData<'revokeBrowser'>, { revoked: boolean; rotation_pending: boolean }>>,
  // Free-form (4.4 `response`, and a `data` whose content is not shown).
  Expect<Equal<PasskeyBody['response'], Record<string, unknown>>>,
  Expect<Equal<EndpointData<'registerPasskey'>, Record<string, unknown>>>,
  Expect<Equal<EndpointResponse<'changeUnlock'>['data'], { head_seq: number }>>,
  Expect<Equal<EndpointResponse<'changeUnlock'>['meta'], { request_id: string; next_cursor?: string | null }>>,
  // The schemas of an endpoint carry its types.
  Expect<Equal<z.infer<ReturnType<typeof schemasOf<typeof commitOperations>>['body']>, CommitBody>>,
  Expect<Equal<z.infer<ReturnType<typeof schemasOf<typeof reportUsage>>['data']>, EndpointData<'reportUsage'>>>,
  Expect<Equal<EndpointBody<'registerPasskey'>, PasskeyBody>>,
];

/** Misspellings do not compile (each `@ts-expect-error` fails the typecheck if its line compiles). */
export function misspellings(op: PouchOperationValue): unknown[] {
  // @ts-expect-error: no such field
  const a = op.artifactId;
  // @ts-expect-error: not an operation type
  const t: PouchOperationValue['type'] = 'move';
  // @ts-expect-error: `base_revision_id` is required (null, not absent, for a create)
  const missing: Pick<PouchOperationValue, 'base_revision_id'> = {};
  // @ts-expect-error: not an endpoint
  type Nope = EndpointBody<'deleteEverything'>;
  return [a, t, missing, null as Nope | null];
}

describe('Infer and toZod at run time', () => {
  it('parsed values have the inferred types and the generated shapes', () => {
    const schema = schemasOf(commitOperations).body;
    for (const r of fc.sample(validRequest('commitOperations', { boundaries: false }), { numRuns: 20, seed: 5 })) {
      const parsed = schema.parse(r.body);
      expectTypeOf(parsed).toEqualTypeOf<CommitBody>();
      for (const op of parsed.ops) {
        expect(typeof op.artifact_id).toBe('string');
        expect(op.base_revision_id === null || typeof op.base_revision_id === 'string').toBe(true);
        expect(op.blob_ids.every((b) => typeof b === 'string')).toBe(true);
      }
    }
    for (const env of fc.sample(validResponse('reportUsage'), { numRuns: 10, seed: 6 })) {
      const parsed = toZod(ENDPOINT_BY_ID.reportUsage.data).parse(env.data);
      expect(Number.isSafeInteger(parsed.stored)).toBe(true);
    }
  });
});

describe('endpoint facts on the model', () => {
  it('listed path parameters name their reading and what the profile lists', () => {
    const listed = Object.fromEntries(Object.values(ENDPOINT_BY_ID).map((e) => [e.id, listedParams(e).map((p) => `${p.name}:${p.listedUnder.assumption}=${p.listedUnder.reading}:${p.listedUnder.list}`)]));
    expect(listed).toEqual({
      approveDevice: ['id:cli-request-exists=profile-ids:cli-request'],
      commitOperations: ['pouchId:pouch-existence=must-exist:pouch'],
      reportUsage: [],
      registerPasskey: [],
      revokeBrowser: ['id:browser-exists=profile-ids:browser'],
      changeUnlock: [],
    });
  });
});
