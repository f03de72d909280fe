/**
 * Narrowing a parsed JSON value (a body, a report.json read back) to a JSON object, so its members
 * are read as `unknown` and checked one by one, never cast to the shape they ought to have.
 */

/** A non-null, non-array object: its members are unknown until each is checked. */
export function isRecord(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** JSON text parsed to `unknown` rather than JSON.parse's `any`, so every use narrows first. Throws as JSON.parse does. */
export function parseJson(text: string): unknown {
  return JSON.parse(text);
}

/**
 * The keys of a table the code wrote itself (a frozen literal typed by its own keys), typed as those keys.
 * Object.keys answers string[] because an object may hold more than its type names; a literal table holds no more.
 */
export function keysOf<T extends object>(table: T): (keyof T & string)[] {
  // The one place a table's keys are typed: see above for why only literal tables come here.
  return Object.keys(table) as (keyof T & string)[];
}

/** What a caught value says: an Error's message, else the value as text (a thrown string says itself). */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The code of a Node system error (`ENOENT`, `EACCES`…), when the caught value has one. */
export function errorCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
}

/**
 * A value the code's own construction guarantees (a key taken from the same table, an entry the
 * catalogue defines): `why` says what guarantees it, and is the error's message if it ever fails.
 */
export function must<T>(v: T | undefined, why: string): T {
  if (v === undefined) throw new Error(`pouchproof: ${why}`);
  return v;
}

/** A table of the same keys, each value mapped: `mapTable(CHARSETS, …).base64url` is typed, where a Map's get would answer `| undefined`. */
export function mapTable<K extends string, V, W>(table: Readonly<Record<K, V>>, f: (value: V, key: K) => W): Readonly<Record<K, W>> {
  return Object.freeze(tableOf(keysOf(table), (k) => f(table[k], k)));
}

/** A table with an entry for each key of a list, typed by those keys (Object.fromEntries answers string keys). */
export function tableOf<K extends string, W>(keys: readonly K[], f: (key: K, index: number) => W): Record<K, W> {
  // Every key of the list is set on the next line, before anyone reads the table.
  const out = {} as Record<K, W>;
  keys.forEach((k, i) => {
    out[k] = f(k, i);
  });
  return out;
}
