/** The target of a library call: a profile (path or object), a bare URL, or the embedded reference (the session's own). */
export { openTarget, type TargetOptions } from '../session/index.ts';
