/** Markdown pieces the report files share. */

/** Keeps a value inside one table cell. */
export function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** A fenced block that the value itself cannot close. */
export function fence(s: string): string {
  const ticks = s.includes('```') ? '````' : '```';
  return `${ticks}\n${s}\n${ticks}`;
}
