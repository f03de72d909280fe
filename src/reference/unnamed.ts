/**
 * The reference's unnamed behaviours: choices the spec's words permit that the assumption registry
 * deliberately does not name, so the judges cannot know them. Each is consulted at the one place an
 * implementer would make that choice. Served, they show that the suite does not guess: it raises no
 * violation, says "unknown" where its judgements depend on the choice, and does not exit 0 on what it
 * could not judge. Never a fault (the spec allows each), never a reading (the registry lacks it).
 */

export interface UnnamedInfo<N extends string = string> {
  readonly name: N;
  readonly description: string;
  /** Why the spec's words allow it. */
  readonly allowedBy: string;
}

function u<const N extends string>(name: N, description: string, allowedBy: string): UnnamedInfo<N> {
  return Object.freeze({ name, description, allowedBy });
}

const LIST = [
  u('stored-rows-inserted', 'data.stored of 4.3 counts the rows this request inserted, not those it raised', '4.3: "the exact meaning of stored: not shown"'),
  u('stored-reports', 'data.stored of 4.3 counts the reports the source has sent, this one included', '4.3: "the exact meaning of stored: not shown"'),
  u('stored-tokens-held', 'data.stored of 4.3 is the tokens the source holds after the request, the totals of its rows added up', '4.3: "the exact meaning of stored: not shown"; 4.3 reports "the tokens that the assistants on this computer used"'),
  u('stored-sequence', 'data.stored of 4.3 is the sequence number the report was stored under, counted across every source of the service', '4.3: "the exact meaning of stored: not shown"'),
  u('results-reordered', 'the results of 4.2 are listed in the reverse order of the ops', '4.2: "an array of Operation result (2.6)", no order shown'),
  u('extra-response-members', 'every success carries members the spec does not list: data.server_time and meta.served_by', '2.1 and 4.x list the required members; 2.8: "Fields of the … request records beyond the identifiers above: not shown"'),
  u('revoked-false-when-already', 'revoking a browser already revoked answers data.revoked false (it was revoked before, not by this request)', '3: the meaning of the state-like boolean revoked is not shown'),
  u('head-seq-clock', 'data.head_seq of 4.6 is the change\'s time in microseconds, kept strictly increasing per account', '4.6: "data.head_seq (integer, required)", its meaning not shown'),
  u('deleted-is-final', 'an artifact whose head is a delete takes only a restore: an update, rename, delete or resolve on that head is refused', '3: "States and transitions: not shown"'),
  u('live-state', 'an update, rename, delete or resolve needs a live artifact and a restore a deleted one, whether the delete came in an earlier batch or earlier in the same batch', '3: "States and transitions: not shown"'),
] as const;

export type UnnamedName = (typeof LIST)[number]['name'];

export const UNNAMED: readonly UnnamedInfo<UnnamedName>[] = Object.freeze(LIST);

const NAMES: ReadonlySet<string> = new Set(UNNAMED.map((x) => x.name));
const isUnnamedName = (n: string): n is UnnamedName => NAMES.has(n);

/** The unnamed behaviours one server instance serves. */
export class UnnamedSet {
  readonly names: readonly UnnamedName[];
  private readonly on: ReadonlySet<UnnamedName>;

  constructor(names: readonly string[] = []) {
    const unknown = names.filter((n) => !NAMES.has(n));
    if (unknown.length > 0) throw new Error(`unknown unnamed behaviour${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; known: ${UNNAMED.map((x) => x.name).join(', ')}`);
    this.names = Object.freeze([...new Set(names.filter(isUnnamedName))]);
    this.on = new Set(this.names);
  }

  has(name: UnnamedName): boolean {
    return this.on.has(name);
  }
}
