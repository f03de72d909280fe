/**
 * A scenario of the user's own, from a file: `pouchproof load --scenario ./mine.ts`. The file is
 * imported here (to check it and read its parameters) and again in every worker thread and shard,
 * by its URL, marked so that the hooks of scenario-hooks.mjs treat it as the user's file. Whatever
 * goes wrong (no such file, no scenario exported, a TypeScript file this Node cannot load, an
 * exception while importing) is one line naming the file, for the CLI's exit 4.
 */
import { existsSync, statSync } from 'node:fs';
import { register } from 'node:module';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { errorCode } from '../spec/index.ts';
import { isScenario } from './define.ts';
import { siblingModule } from './module-url.ts';
import type { Scenario } from './scenario.ts';

/** The query that marks a user's scenario file for the hooks (SCENARIO_QUERY there). */
export const SCENARIO_QUERY = 'pouchproof-scenario';

const SCRIPT_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];
const TYPESCRIPT = new Set(['.ts', '.mts', '.cts']);

/** `--scenario` names a file, not a built-in scenario: a path (./, ../, /) or a script's extension. */
export function isScenarioPath(s: string): boolean {
  return /^\.{0,2}\//.test(s) || /^[A-Za-z]:[\\/]/.test(s) || SCRIPT_EXTENSIONS.some((e) => s.endsWith(e)) || s.endsWith('.cts');
}

/** True in a thread that has a TypeScript loader: this module runs as TypeScript itself (tsx), or Node strips types. */
export function canLoadTypeScript(): boolean {
  return import.meta.url.endsWith('.ts') || Boolean(Reflect.get(process.features, 'typescript'));
}

let registered = false;

/** Registers scenario-hooks.mjs once per thread (each worker thread registers its own). */
export function registerScenarioHooks(): void {
  if (registered) return;
  registered = true;
  register(new URL('./scenario-hooks.mjs', import.meta.url), { data: { entry: siblingModule(import.meta.url, '../index').href } });
}

/**
 * A user's file as the URL every thread imports (marked for the hooks), after the checks an import
 * cannot make clearly. `typescript`: whether this Node can load TypeScript (a parameter for the tests).
 */
export function scenarioFileUrl(path: string, typescript = canLoadTypeScript()): string {
  const abs = resolve(path);
  if (!existsSync(abs)) throw new Error(`scenario file ${path} does not exist`);
  if (!statSync(abs).isFile()) throw new Error(`scenario file ${path} is not a file`);
  const ext = extname(abs);
  if (ext === '.cts' || ext === '.cjs') throw new Error(`scenario file ${path}: a CommonJS file cannot be loaded; write it as an ES module (.ts, .mts, .js or .mjs)`);
  if (TYPESCRIPT.has(ext) && !typescript) {
    throw new Error(`scenario file ${path} is TypeScript, which Node ${process.versions.node} cannot load (Node strips types from 22.18 and 23.6 on, from 22.10 with --experimental-strip-types): compile it to .js (e.g. npx tsc --module esnext --moduleResolution bundler --target es2022 ${path}) and pass the .js`);
  }
  const url = pathToFileURL(abs);
  url.searchParams.set(SCENARIO_QUERY, '');
  return url.href;
}

/** Imports a scenario module by URL and returns its default export, which defineScenario must have made. */
export async function importScenario(url: string, shown = url): Promise<Scenario> {
  if (new URL(url).searchParams.has(SCENARIO_QUERY)) registerScenarioHooks();
  let mod: unknown;
  try {
    mod = await import(url);
  } catch (e) {
    throw new Error(`scenario file ${shown} could not be imported: ${oneLine(e)}`);
  }
  const exported: unknown = typeof mod === 'object' && mod !== null ? Reflect.get(mod, 'default') : undefined;
  if (!isScenario(exported)) {
    throw new Error(`scenario file ${shown} has no scenario as its default export: write \`export default defineScenario({ … })\` with defineScenario from 'pouchproof'`);
  }
  return exported;
}

/** At most this much of an import error's message: a transpiler's names the place, then quotes the source at length. */
const IMPORT_ERROR_CHARS = 240;

/** An error's message on one line, with its code when it has one: an import error's stack is no use to the user. */
function oneLine(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  const code = errorCode(e);
  const flat = text.split('\n').map((l) => l.trim()).filter(Boolean).join(' ');
  const msg = flat.length > IMPORT_ERROR_CHARS ? `${flat.slice(0, IMPORT_ERROR_CHARS - 1)}…` : flat;
  return typeof code === 'string' && !msg.includes(code) ? `${code}: ${msg}` : msg;
}

/** A user's scenario file, loaded and checked, with the URL the worker threads import. */
export async function loadScenarioFile(path: string): Promise<{ scenario: Scenario; url: string }> {
  const url = scenarioFileUrl(path);
  return { scenario: await importScenario(url, path), url };
}
