import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../src/crypto/canonical.ts';
import { generateDeviceKey, privateKeyFromJwk, publicKeyFromJwk } from '../../src/crypto/keys.ts';
import { verifyServiceSignature } from '../../src/crypto/service-signature.ts';
import { CommitBuilder, deviceSigner, makeChains, usageBody, usageKeySpace, usageRow } from '../../src/load/bodies.ts';
import { judgeGrowth } from '../../src/load/growth.ts';
import { isLoopbackAddress } from '../../src/load/remote.ts';
import { Rng } from '../../src/load/rng.ts';
import { LIMITS, commitOperations, issuesOf, reportUsage, schemasOf } from '../../src/spec/index.ts';

describe('load bodies', () => {
  const keys = generateDeviceKey();
  const kid = '6f1c2a4e-1b2c-4d3e-8f40-123456789abc';
  const signer = deviceSigner({ kid, privateKey: privateKeyFromJwk(keys.privateJwk) });

  it('builds canonical, schema-valid, signed commits that continue each chain', () => {
    const rng = new Rng(7);
    const b = new CommitBuilder({ rng, shape: { opsPerBatch: 3, envelopeSize: 40, blobIdsPerOp: 5 }, signerMemberId: rng.uuid(), signer });
    const [chain] = makeChains(rng, [rng.uuid()], 1);
    const first = b.build(chain!);
    const parsed = JSON.parse(first.body) as { ops: Array<{ type: string; base_revision_id: string | null; revision_id: string; blob_ids: string[]; envelope: string }> };
    expect(issuesOf(schemasOf(commitOperations).body, parsed)).toEqual([]);
    expect(canonicalize(parsed)).toBe(first.body);
    expect(parsed.ops.map((o) => o.type)).toEqual(['create', 'update', 'update']);
    expect(parsed.ops[0]!.base_revision_id).toBeNull();
    expect(parsed.ops[1]!.base_revision_id).toBe(parsed.ops[0]!.revision_id);
    expect(first.finalRevision).toBe(parsed.ops[2]!.revision_id);
    expect(new Set(parsed.ops[0]!.blob_ids).size).toBe(5);
    const v = verifyServiceSignature({ header: first.signature, rawBody: Buffer.from(first.body), parsedBody: parsed, keyFor: () => publicKeyFromJwk(keys.publicJwk) });
    expect(v).toEqual({ ok: true, kid });
    chain!.head = first.finalRevision;
    const second = JSON.parse(b.build(chain!).body) as typeof parsed & { operation_id: string };
    expect(second.ops[0]!.base_revision_id).toBe(first.finalRevision);
    expect(second.operation_id).not.toBe((JSON.parse(first.body) as { operation_id: string }).operation_id);
  });

  it('builds bodies at the spec maxima that the schema accepts', () => {
    const rng = new Rng(1);
    const shape = { opsPerBatch: LIMITS.opsPerCommit.max!, envelopeSize: 1000, blobIdsPerOp: LIMITS.blobIdsPerOp.max! };
    const b = new CommitBuilder({ rng, shape, signerMemberId: rng.uuid() });
    const body = JSON.parse(b.build(makeChains(rng, [rng.uuid()], 1)[0]!).body) as unknown;
    expect(issuesOf(schemasOf(commitOperations).body, body)).toEqual([]);
    expect(() => new CommitBuilder({ rng, shape: { ...shape, opsPerBatch: LIMITS.opsPerCommit.max! + 1 }, signerMemberId: rng.uuid() })).toThrow(/ops per batch/);
  });

  it('is deterministic per seed and builds usage bodies the schema accepts', () => {
    const a = new Rng(42), b = new Rng(42);
    expect(a.uuid()).toBe(b.uuid());
    const rng = new Rng(3);
    const keysp = usageKeySpace(rng, { days: 3, assistants: 2, models: 2 });
    const body = JSON.parse(usageBody(keysp.map((k) => usageRow(rng, k, 1000)))) as unknown;
    expect(keysp).toHaveLength(12);
    expect(issuesOf(schemasOf(reportUsage).body, body)).toEqual([]);
  });

  it('judges cost growth: quadratic flagged, linear with overhead not', () => {
    const q = [0, 250, 500, 1000, 2000].map((n) => ({ value: n, min: 500 + 0.003 * n * n }));
    const l = [0, 250, 500, 1000, 2000].map((n) => ({ value: n, min: 500 + 4 * n }));
    expect(judgeGrowth('blobs', q).superlinear).toBe(true);
    expect(judgeGrowth('blobs', l).superlinear).toBe(false);
    expect(judgeGrowth('blobs', l).exponent).toBeLessThanOrEqual(1);
  });

  it('knows the loopback interface', () => {
    expect(['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1'].every(isLoopbackAddress)).toBe(true);
    expect(['10.0.0.1', '192.0.2.1', '::2', '128.0.0.1'].some(isLoopbackAddress)).toBe(false);
  });
});
