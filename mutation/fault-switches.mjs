/**
 * A Stryker ignorer (`ignorers: ["fault-switches"]`): no mutants in the reference's fault-switch
 * plumbing. A named fault (src/reference/fault-catalogue.ts) is off in the correct reference, so a mutant of
 * `faults.has('…')` itself, or of code that only runs when a fault is on, changes nothing the suite
 * can see; it would be counted as "no coverage" or "survived" and hide the real figures. Faults are
 * checked separately: every fault must be caught by its expected killer (`pouchproof mutants`).
 *
 * Also ignored, for the same reason seen from the spec's side: the code and message arguments of
 * an error (`new HttpError(status, code, message)`, `badRequest`, `unauthorized`, `refusal`). The
 * spec shows no error body (section 7), so a property that judged them would break the promise.
 *
 * The same for the unnamed behaviours (`<x>.unnamed.has(…)`): off in the correct reference, each one a
 * correct server (the spec allows it), shown separately (test/precision/verdicts.test.ts).
 *
 * Ignored: a fault check (`<x>.faults.has(…)`, `faults.has(…)`, `<x>.faults.any`), and a branch that
 * only runs when one is true: the consequent of `if (F …)` / `F … ? a : b` (F conjoined with
 * anything), the alternate of `if (!F …)`, the right side of `F && x` and of `!F || x`.
 */

/**
 * The sets of switches that are off in the correct reference: named faults, and the unnamed
 * behaviours (src/reference/unnamed.ts, choices the spec allows that the registry does not name).
 * A mutant forcing an unnamed behaviour on *is* a correct server the suite must not fault (it says
 * "unknown" there, test/precision/verdicts.test.ts), so it is no mutant to kill either.
 */
const SWITCH_SETS = new Set(['faults', 'unnamed']);

/** @param {any} n */
function isFaultSet(n) {
  if (!n) return false;
  if (n.type === 'Identifier') return SWITCH_SETS.has(n.name);
  return n.type === 'MemberExpression' && !n.computed && n.property.type === 'Identifier' && SWITCH_SETS.has(n.property.name);
}

/** `faults.has(…)`, `faults.any`, `unnamed.has(…)` or `LIST.some((f) => faults.has(f))`. @param {any} n */
function isFaultCheck(n) {
  if (!n) return false;
  if (n.type === 'TSAsExpression' || n.type === 'TSNonNullExpression' || n.type === 'ParenthesizedExpression') return isFaultCheck(n.expression);
  if (n.type === 'CallExpression') {
    const c = n.callee;
    if (c.type !== 'MemberExpression' || c.computed || c.property.type !== 'Identifier') return false;
    if (c.property.name === 'has') return isFaultSet(c.object);
    // `LIST.some((f) => faults.has(f))`: some fault of a list is on.
    const [fn] = n.arguments;
    return c.property.name === 'some' && fn?.type === 'ArrowFunctionExpression' && isFaultCheck(fn.body);
  }
  return n.type === 'MemberExpression' && !n.computed && n.property.type === 'Identifier' && n.property.name === 'any' && isFaultSet(n.object);
}

/** True only if some fault is on. @param {any} n */
function requiresFault(n) {
  if (!n) return false;
  if (n.type === 'ParenthesizedExpression') return requiresFault(n.expression);
  if (isFaultCheck(n)) return true;
  if (n.type === 'LogicalExpression' && n.operator === '&&') return requiresFault(n.left) || requiresFault(n.right);
  if (n.type === 'LogicalExpression' && n.operator === '||') return requiresFault(n.left) && requiresFault(n.right);
  if (n.type === 'UnaryExpression' && n.operator === '!') return forbidsFault(n.argument);
  return false;
}

/** False only if some fault is on. @param {any} n */
function forbidsFault(n) {
  if (!n) return false;
  if (n.type === 'ParenthesizedExpression') return forbidsFault(n.expression);
  if (n.type === 'UnaryExpression' && n.operator === '!') return requiresFault(n.argument);
  if (n.type === 'LogicalExpression' && n.operator === '||') return forbidsFault(n.left) || forbidsFault(n.right);
  return false;
}

const REASON = 'fault-switch plumbing: runs only when a named fault or an unnamed behaviour is on (docs/mutation.md)';
const MESSAGE = 'an error body: its code and message are not shown in the spec (section 7), so no property may judge them';

/** Builders of a rejection and the positions of their code and message arguments. */
const ERROR_TEXT_ARGS = new Map([
  ['HttpError', [1, 2]],
  ['badRequest', [0, 1]],
  ['unauthorized', [0]],
  ['refusal', [1, 2]],
]);

/** @param {any} path */
function isErrorText(path) {
  const parent = path.parent;
  if (!parent || path.listKey !== 'arguments') return false;
  if (parent.type !== 'CallExpression' && parent.type !== 'NewExpression') return false;
  if (parent.callee.type !== 'Identifier') return false;
  const at = ERROR_TEXT_ARGS.get(parent.callee.name);
  return at?.includes(path.key);
}

/** @type {{ shouldIgnore(path: any): string | undefined }} */
const ignorer = {
  shouldIgnore(path) {
    const n = path.node;
    const negatedCheck = n.type === 'UnaryExpression' && n.operator === '!' && isFaultCheck(n.argument);
    if (requiresFault(n) || negatedCheck) return REASON;
    if (isErrorText(path)) return MESSAGE;
    const parent = path.parent;
    if (!parent) return undefined;
    if ((parent.type === 'IfStatement' || parent.type === 'ConditionalExpression') && path.key === 'consequent' && requiresFault(parent.test)) return REASON;
    if ((parent.type === 'IfStatement' || parent.type === 'ConditionalExpression') && path.key === 'alternate' && forbidsFault(parent.test)) return REASON;
    if (parent.type === 'LogicalExpression' && path.key === 'right') {
      if (parent.operator === '&&' && requiresFault(parent.left)) return REASON;
      if (parent.operator === '||' && forbidsFault(parent.left)) return REASON;
    }
    return undefined;
  },
};

export const strykerPlugins = [{ kind: 'Ignore', name: 'fault-switches', value: ignorer }];
