/** Deterministic commit bodies for the crypto tests (realistic field shapes, fixed values). */
import { createHash } from 'node:crypto';

function uuidFrom(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function b64uOf(seed: string, chars: number): string {
  let out = '';
  for (let i = 0; out.length < chars; i++) out += createHash('sha256').update(`${seed}/${i}`).digest('base64url');
  return out.slice(0, chars);
}

export function commitBody(opCount: number, seed = 'body'): Record<string, unknown> {
  return {
    operation_id: uuidFrom(`${seed}/operation`),
    epoch: uuidFrom(`${seed}/epoch`),
    ops: Array.from({ length: opCount }, (_, i) => ({
      type: i === 0 ? 'create' : 'update',
      artifact_id: uuidFrom(`${seed}/artifact/${i}`),
      revision_id: uuidFrom(`${seed}/revision/${i}`),
      base_revision_id: i === 0 ? null : uuidFrom(`${seed}/base/${i}`),
      merge_parent_id: null,
      name_index: b64uOf(`${seed}/name/${i}`, 43),
      conflict_id: null,
      key_gen: 1,
      envelope: b64uOf(`${seed}/envelope/${i}`, 1024),
      signature: b64uOf(`${seed}/sig/${i}`, 86),
      signer_member_id: uuidFrom(`${seed}/signer`),
      blob_ids: [uuidFrom(`${seed}/blob/${i}`)],
    })),
  };
}
