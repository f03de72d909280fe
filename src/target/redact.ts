/**
 * Masks secrets in anything pouchproof prints: each secret and the encodings it is likely to travel
 * in (JSON string escaping, base64/base64url, percent-encoding).
 */

export const MASK = '***';

/** Forms a secret may take in a request or a report. */
export function secretForms(secret: string): string[] {
  if (secret === '') return [];
  const forms = new Set<string>([secret]);
  forms.add(JSON.stringify(secret).slice(1, -1));
  const bytes = Buffer.from(secret, 'utf8');
  forms.add(bytes.toString('base64url'));
  forms.add(bytes.toString('base64'));
  forms.add(bytes.toString('base64').replace(/=+$/, ''));
  try {
    forms.add(encodeURIComponent(secret));
  } catch {
    // Lone surrogates cannot be percent-encoded; the other forms still apply.
  }
  return [...forms].filter((f) => f !== '');
}

/**
 * Lists already made, by the secrets array they were made of: a report masks every string it holds,
 * and making the list again for each made it the run's largest source of garbage after data generation.
 */
const lists = new WeakMap<readonly string[], { readonly of: readonly string[]; readonly list: readonly string[] }>();

/** Every form of every secret, longest first, so a secret containing another is masked whole. */
export function maskList(secrets: readonly string[]): readonly string[] {
  const made = lists.get(secrets);
  // The secrets it was made of are compared too: an array changed since must never mask too little.
  if (made && made.of.length === secrets.length && made.of.every((s, i) => s === secrets[i])) return made.list;
  const all = new Set<string>();
  for (const s of secrets) for (const f of secretForms(s)) all.add(f);
  const list = [...all].sort((a, b) => b.length - a.length);
  lists.set(secrets, { of: [...secrets], list });
  return list;
}

export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const form of maskList(secrets)) {
    if (out.includes(form)) out = out.split(form).join(MASK);
  }
  return out;
}

/**
 * The same over raw bytes (a body that may not be UTF-8): bytes are matched against the UTF-8
 * encodings of the forms.
 */
export function redactBytes(data: Uint8Array, secrets: readonly string[]): Uint8Array {
  const bin = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('latin1');
  let out = bin;
  for (const form of maskList(secrets)) {
    const b = Buffer.from(form, 'utf8').toString('latin1');
    if (out.includes(b)) out = out.split(b).join(MASK);
  }
  return out === bin ? data : new Uint8Array(Buffer.from(out, 'latin1'));
}
