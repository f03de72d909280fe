/** `--only` and `--exclude` globs over property ids: `*` matches within a dotted segment, `**` across segments. */
import type { Property } from '../property.ts';

export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        re += '.*';
        i++;
      } else re += '[^.]*';
    } else if (c === '?') re += '[^.]';
    else re += c.replace(/[\\^$+.()|{}[\]]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Whether `id` matches any glob; a glob without `.` also matches a whole area (`usage` = `usage.*`). */
export function matchesAny(id: string, globs: readonly string[]): boolean {
  return globs.some((g) => globToRegExp(g).test(id) || (!g.includes('.') && globToRegExp(`${g}.**`).test(id)));
}

/** The properties `only` matches (all, without it), less those `exclude` matches. */
export function selectProperties<P extends Pick<Property, 'id'>>(props: readonly P[], only: readonly string[] | undefined, exclude?: readonly string[]): P[] {
  const kept = !only || only.length === 0 ? [...props] : props.filter((p) => matchesAny(p.id, only));
  return exclude?.length ? kept.filter((p) => !matchesAny(p.id, exclude)) : kept;
}
