// Module hooks for a user's scenario file (src/load/scenario-file.ts registers them), in plain
// JavaScript because they run in Node's hooks thread, before any TypeScript loader applies:
// - `import … from 'pouchproof'` resolves to the package that is running (its sources from a clone,
//   its build when installed), wherever the file lies: a ConfigMap mounted at /scenarios has no
//   node_modules, and one copy of the package means one set of classes for the engine and the file;
// - the file itself (marked by SCENARIO_QUERY) is an ES module even where the nearest package.json
//   does not say "type": "module" (a bare .js or .ts next to no package.json at all).
let entry;
const QUERY = 'pouchproof-scenario';
const AS_MODULE = { commonjs: 'module', 'commonjs-typescript': 'module-typescript' };

export async function initialize(data) {
  entry = data.entry;
}

export async function resolve(specifier, context, next) {
  return next(specifier === 'pouchproof' ? entry : specifier, context);
}

export async function load(url, context, next) {
  const loaded = await next(url, context);
  if (!url.startsWith('file:') || !new URL(url).searchParams.has(QUERY) || !(loaded.format in AS_MODULE)) return loaded;
  return next(url, { ...context, format: AS_MODULE[loaded.format] });
}
