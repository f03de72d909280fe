/**
 * Modules loaded by URL (worker entries, scenarios) are not import specifiers, so tsc's
 * `rewriteRelativeImportExtensions` leaves them alone: from a clone the caller is a `.ts` source run
 * through tsx and its sibling is `.ts` too; from the built package the caller is `.js`, and so is the sibling.
 */
export function siblingModule(callerUrl: string, stem: string): URL {
  const ext = new URL(callerUrl).pathname.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./${stem}${ext}`, callerUrl);
}
