/**
 * `stream-partial-batch`: what a streaming JSON parser has read of a commit body cut mid-way. The
 * ops array is the body's last member (as clients write it), so the ops read whole are the body's
 * text up to the last op object closed, with the array and the object closed after it.
 */

/** The body cut after its last whole op, closed into JSON text; undefined when no op was read whole. */
// Stryker disable all: runs only under the stream-partial-batch fault (docs/mutation.md)
export function wholeOpsOf(text: string): string | undefined {
  const open: string[] = [];
  let inString = false;
  let end = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') open.push(c);
    else if (c === '}' || c === ']') {
      open.pop();
      // An object closed inside the root's array: one op read whole.
      if (c === '}' && open.length === 2 && open[1] === '[') end = i + 1;
    }
  }
  return end < 0 ? undefined : `${text.slice(0, end)}]}`;
}
// Stryker restore all
