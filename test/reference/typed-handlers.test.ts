/**
 * The handlers take their types from the spec model: a body field, a `data` shape or a missing
 * handler that the model does not allow breaks the typecheck (the `@ts-expect-error` lines fail
 * `tsc` when they stop being errors); the runtime part checks the catalogue and the fault transform.
 */
import { describe, expect, it } from 'vitest';
import { dataOut, offSpec, type Handler, type Handlers } from '../../src/reference/context.ts';
import { FaultSet } from '../../src/reference/faults.ts';
import { HANDLERS } from '../../src/reference/handlers/index.ts';
import { ENDPOINT_BY_ID, type UsageData } from '../../src/spec/index.ts';

export const wrongData: Handler<'reportUsage'> = () => ({
  status: 200,
  // @ts-expect-error: `stored` is an integer (4.3); a fault's string goes through offSpec
  data: { stored: '1' },
});

export const offSpecData: Handler<'reportUsage'> = () => ({ status: 200, data: offSpec({ stored: '1' }) });

export const wrongBody: Handler<'commitOperations'> = (ctx) => {
  // @ts-expect-error: a commit body has `operation_id`, not `operationId`
  const id: string = ctx.body.operationId;
  return { status: 200, data: { results: ctx.body.ops.map((op) => ({ status: 'applied' as const, artifact_id: op.artifact_id, revision_id: id, seq: 1, high_water: 1 })) } };
};

// @ts-expect-error: every endpoint of the model needs its handler
export const missing: Handlers = { approveDevice: HANDLERS.approveDevice };

describe('typed handlers', () => {
  it('there is one handler per endpoint of the model', () => {
    expect(Object.keys(HANDLERS).sort()).toEqual(Object.keys(ENDPOINT_BY_ID).sort());
  });

  it('envelope-wrong-types sends every integer of data as a string, and nothing else changes', () => {
    const data: UsageData = { stored: 3 };
    expect(dataOut(data, new FaultSet([]))).toBe(data);
    expect(dataOut({ results: [{ status: 'applied', seq: 4, high_water: 5 }] }, new FaultSet(['envelope-wrong-types']))).toEqual({
      results: [{ status: 'applied', seq: '4', high_water: '5' }],
    });
  });
});
