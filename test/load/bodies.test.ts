import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../src/crypto/canonical.ts';
import { generateDeviceKey, privateKeyFromJwk, publicKeyFromJwk } from '../../src/crypto/keys.ts';
import { verifyServiceSignature, type CanonicalForm, type JwsForm } from '../../src/crypto/service-signature.ts';
import { CommitBuilder, makeChains, usageBody, usageKeySpace, usageRow } from '../../src/load/bodies.ts';
import { confirmGrowth, judgeGrowth } from '../../src/load/stats/growth.ts';
import { isLoopbackAddress } from '../../src/load/remote.ts';
import { Rng } from '../../src/load/rng.ts';
import { DEFAULT_ASSUMPTIONS, LIMITS, assumptionOf, commitOperations, issuesOf, reportUsage, schemasOf } from '../../src/spec/index.ts';
import { callerOf } from '../../src/load/requests.ts';
import { generateFixture, profileOf } from '../../src/reference/fixture.ts';
import { parseProfile } from '../../src/target/profile.ts';
import { bodySigner, signatureFor } from '../../src/target/signing.ts';

describe('load bodies', () => {
  const keys = generateDeviceKey();
  const kid = '6f1c2a4e-1b2c-4d3e-8f40-123456789abc';
  const privateKey = privateKeyFromJwk(keys.privateJwk);
  const signer = bodySigner({ kid, privateKey }, DEFAULT_ASSUMPTIONS);

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

  it('signs through the one signing path under every reading of canonical-json and jws-form, as the conformance client does', () => {
    const rng = new Rng(11);
    const publicKey = publicKeyFromJwk(keys.publicJwk);
    const forms = assumptionOf('canonical-json').choices.map((c) => c.value as CanonicalForm);
    const jwsForms = assumptionOf('jws-form').choices.map((c) => c.value as JwsForm);
    expect(forms.length * jwsForms.length).toBeGreaterThanOrEqual(6);
    for (const canonical of forms) {
      for (const jwsForm of jwsForms) {
        const readings = { ...DEFAULT_ASSUMPTIONS, 'canonical-json': canonical, 'jws-form': jwsForm };
        const b = new CommitBuilder({ rng, shape: { opsPerBatch: 2, envelopeSize: 64, blobIdsPerOp: 3 }, signerMemberId: rng.uuid(), signer: bodySigner({ kid, privateKey }, readings) });
        const built = b.build(makeChains(rng, [rng.uuid()], 1)[0]!);
        const bytes = Buffer.from(built.body);
        const verify = (header: string | undefined, form: { canonical: CanonicalForm; jwsForm: JwsForm }) =>
          verifyServiceSignature({ header, rawBody: bytes, parsedBody: JSON.parse(built.body) as unknown, keyFor: () => publicKey, ...form }).ok;
        const client = signatureFor({ option: 'auto', endpoint: commitOperations, identity: { kind: 'device', headers: {}, deviceId: kid, privateKey }, bytes, assumptions: readings });
        for (const header of [built.signature, client]) {
          expect(verify(header, { canonical, jwsForm }), `${canonical}, ${jwsForm}`).toBe(true);
          // The jws-form reading is honoured: the other form's verifier refuses it.
          expect(verify(header, { canonical, jwsForm: jwsForms.find((f) => f !== jwsForm)! }), `${canonical}, ${jwsForm} read as the other form`).toBe(false);
        }
      }
    }
  });

  it('a load caller signs commits under its profile\'s readings', () => {
    const fixture = generateFixture();
    const readings = { 'canonical-json': 'sorted-compact', 'jws-form': 'b64-text-payload' } as const;
    const profile = parseProfile({ ...profileOf(fixture, 'http://127.0.0.1:1'), assumptions: readings });
    const caller = callerOf(profile, 'device', fixture.primary.device.memberId);
    const rng = new Rng(3);
    const body = new CommitBuilder({ rng, shape: { opsPerBatch: 1, envelopeSize: 8, blobIdsPerOp: 1 }, signerMemberId: caller.memberId, signer: caller.signer }).build(makeChains(rng, [rng.uuid()], 1)[0]!);
    const publicKey = publicKeyFromJwk(fixture.primary.device.publicJwk);
    const verify = (jwsForm: JwsForm) => verifyServiceSignature({ header: body.signature, rawBody: Buffer.from(body.body), parsedBody: JSON.parse(body.body) as unknown, keyFor: () => publicKey, canonical: readings['canonical-json'], jwsForm }).ok;
    expect(verify('b64-text-payload')).toBe(true);
    expect(verify('digest-payload')).toBe(false);
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

  it('confirms growth worse than linear only when a second sweep, and the fastest of both, bend too', () => {
    const sizes = [0, 250, 500, 1000, 2000];
    const curve = (f: (n: number) => number) => sizes.map((n) => ({ value: n, min: f(n) }));
    const quadratic = curve((n) => 500 + 0.003 * n * n);
    const linear = curve((n) => 500 + 4 * n);
    // A busy moment inflated the largest point of one sweep only.
    const bentOnce = linear.map((p) => (p.value === 2000 ? { ...p, min: p.min * 4 } : p));
    expect(judgeGrowth('blobs', bentOnce).superlinear).toBe(true);
    expect(confirmGrowth('blobs', bentOnce, linear)).toMatchObject({ superlinear: false, confirmed: false });
    expect(confirmGrowth('blobs', linear, bentOnce).superlinear).toBe(false);
    const confirmed = confirmGrowth('blobs', quadratic, curve((n) => 520 + 0.003 * n * n));
    expect(confirmed).toMatchObject({ superlinear: true, confirmed: true });
    expect(confirmed.message).toContain('confirmed by a second sweep');
  });

  it('knows the loopback interface', () => {
    expect(['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1'].every(isLoopbackAddress)).toBe(true);
    expect(['10.0.0.1', '192.0.2.1', '::2', '128.0.0.1'].some(isLoopbackAddress)).toBe(false);
  });
});
