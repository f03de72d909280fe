/**
 * The compare-and-set register that optimistic concurrency on revision ids (4.2) makes of each
 * artifact: its state is the head revision (null before the artifact exists); an op built on base B
 * creating revision R takes effect only when the head is B, and then the head is R. An applied op
 * must find its base at the head; a refused op took no effect (why it was refused is the server's
 * business: the spec does not say an op on the head must apply); an op whose outcome is unknown
 * applied (on its base) or did not (the checker's "not at all").
 */
import type { Model } from './model.ts';

export interface CasInput {
  /** The register (an artifact id). */
  readonly key: string;
  /** The head the op was built on (null: a create). */
  readonly base: string | null;
  /** The head it sets when it applies. */
  readonly next: string;
  /** What the op was (update, rename, …), for timelines. */
  readonly what: string;
}

export type CasOutput = 'applied' | 'refused';

export const CAS_MODEL: Model<string | null, CasInput, CasOutput> = Object.freeze({
  init: () => null,
  step(state: string | null, input: CasInput, output: CasOutput | undefined) {
    if (output === 'refused') return { ok: true as const, state };
    return state === input.base ? { ok: true as const, state: input.next } : { ok: false as const };
  },
  key: (state: string | null) => state ?? '',
  partition: (input: CasInput) => input.key,
});
