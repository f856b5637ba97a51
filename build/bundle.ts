// esbuild: src/main.ts and every src/**/*.worker.ts become self-contained CommonJS files
// that run inside the executable, where `require` knows only Node's built-in modules.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';

/** Relative paths (with `/`, from src/) of every worker entry: `src/**\/*.worker.ts`. */
export function workerEntries(srcDir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(srcDir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith('.worker.ts')) out.push(child);
    }
  };
  walk('');
  return out.sort();
}

// Every bundle computes import.meta.url once, from the executable's own path (src code only
// uses it to find files beside itself, which inside the executable come from assets instead).
const IMPORT_META_URL = '__burrow_import_meta_url';
const BANNER = `var ${IMPORT_META_URL} = require("node:url").pathToFileURL(process.execPath).href;
${memoToEsm.toString()}
var __burrow_esm = [new WeakMap(), new WeakMap()];`;

/** The banner's own variable, beside memoToEsm in every bundle. */
declare const __burrow_esm: [
  WeakMap<object, { names: number; ns: unknown }>,
  WeakMap<object, { names: number; ns: unknown }>,
];

/**
 * esbuild's CommonJS output imports a module into an ES module through its `__toESM` helper, once
 * per importing file: a fresh object with a getter for every export. node:fs alone was wrapped
 * dozens of times; 233 wraps at every start cost ~40 ms and kept 2 MB of getters on the heap
 * (`burrow --version`, heap used after a collection: 19.3 → 17.3 MB). `memoizeToEsm` makes the
 * helper hand the same wrapper to every importer of one module. A wrapper is made again when the
 * module's export names grew since (a CommonJS module read during a circular require, before
 * it finished): the getters read each value at use, so only the set of names can go stale.
 */
function memoToEsm(mod: unknown, isNodeMode: unknown, fresh: (mod: unknown, isNodeMode: unknown) => unknown): unknown {
  if (mod === null || (typeof mod !== 'object' && typeof mod !== 'function')) return fresh(mod, isNodeMode);
  const cache = __burrow_esm[isNodeMode ? 1 : 0];
  const names = Object.getOwnPropertyNames(mod).length;
  const hit = cache.get(mod);
  if (hit && hit.names === names) return hit.ns;
  const ns = fresh(mod, isNodeMode);
  cache.set(mod, { names, ns });
  return ns;
}

const TO_ESM = 'var __toESM=(mod,isNodeMode,target)=>(';
const TO_ESM_MEMO = `var __toESM=(mod,isNodeMode)=>${memoToEsm.name}(mod,isNodeMode,__toEsmFresh),__toEsmFresh=(mod,isNodeMode,target)=>(`;

/** Routes each bundle's `__toESM` through memoToEsm (above); a helper written otherwise stops the build. */
function memoizeToEsm(file: string): void {
  const code = fs.readFileSync(file, 'utf8');
  if (!code.includes('__toESM')) return;
  if (code.split(TO_ESM).length !== 2)
    throw new Error(`${file}: esbuild's __toESM helper is not written as expected (${TO_ESM}); see memoizeToEsm`);
  fs.writeFileSync(file, code.replace(TO_ESM, TO_ESM_MEMO));
}

// Packages whose native parts cannot be bundled: they load from packs (src/native.ts), lazily.
const NATIVE_PACKAGES = /^(@napi-rs\/image|@lydell\/node-pty)(\/|$)/;

function burrowPlugin(root: string): esbuild.Plugin {
  const nativeLoader = path.join(root, 'src', 'native.ts');
  return {
    name: 'burrow',
    setup(build) {
      // `createRequire(import.meta.url)('pkg')` with a literal name becomes a plain require,
      // which esbuild bundles (a createRequire call is opaque to it).
      build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
        const source = await fs.promises.readFile(args.path, 'utf8');
        const contents = source.replace(/createRequire\(import\.meta\.url\)\((['"][^'"]+['"])\)/g, 'require($1)');
        return { contents, loader: 'ts' };
      });
      // node-sqlite3-wasm: its Emscripten prologue takes a global `Module`; hand it the
      // embedded .wasm bytes so it never looks for a file beside the executable.
      build.onLoad({ filter: /node-sqlite3-wasm[\\/]dist[\\/]node-sqlite3-wasm\.js$/ }, async (args) => {
        const source = await fs.promises.readFile(args.path, 'utf8');
        const prologue =
          'var Module = (function () { try { var sea = require("node:sea"); if (sea.isSea()) return { wasmBinary: sea.getRawAsset("node-sqlite3-wasm.wasm") }; } catch (e) {} return undefined; })();\n';
        return { contents: prologue + source, loader: 'js' };
      });
      // ws: its optional speed-ups are absent; it catches the failed require and carries on.
      build.onResolve({ filter: /^(bufferutil|utf-8-validate)$/ }, (args) => ({
        path: args.path,
        namespace: 'absent',
      }));
      build.onLoad({ filter: /.*/, namespace: 'absent' }, (args) => ({
        contents: `throw Object.assign(new Error("Cannot find module '${args.path}'"), { code: 'MODULE_NOT_FOUND' });`,
        loader: 'js',
      }));
      // A lazy `require('@napi-rs/image')` anywhere in src/ loads the add-on extracted from the
      // executable (src/native.ts); its failure is thrown where the require is, as from source.
      build.onResolve({ filter: NATIVE_PACKAGES }, (args) => {
        if (args.importer === nativeLoader) return undefined;
        const name = args.path === '@napi-rs/image' ? 'image' : args.path === '@lydell/node-pty' ? 'pty' : null;
        if (!name)
          return {
            errors: [{ text: `${args.path}: only the packages themselves can be loaded from inside the executable` }],
          };
        return { path: name, namespace: 'native-addon' };
      });
      build.onLoad({ filter: /.*/, namespace: 'native-addon' }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(nativeLoader)}).requireAddonFromCache(${JSON.stringify(args.path)});`,
        resolveDir: root,
        loader: 'js',
      }));
    },
  };
}

/**
 * Every import and require the bundle resolved to a file must be the file Node itself loads
 * from source (same package export, same ESM or CommonJS build): a bundling difference is a
 * bug, and it fails the build here instead of a request at run time. Node answers in a child
 * (`import.meta.resolve` with a parent needs a flag).
 */
export function sameAsNode(root: string, metafile: esbuild.Metafile): void {
  const asks: { kind: string; parent: string; spec: string; bundled: string }[] = [];
  for (const [file, input] of Object.entries(metafile.inputs)) {
    if (file.includes(':')) continue; // a plugin's module (absent, native-addon)
    for (const imp of input.imports) {
      if (imp.external || !imp.original || imp.path.includes(':')) continue;
      if (imp.kind !== 'require-call' && imp.kind !== 'import-statement' && imp.kind !== 'dynamic-import') continue;
      asks.push({
        kind: imp.kind,
        parent: path.join(root, file),
        spec: imp.original,
        bundled: path.join(root, imp.path),
      });
    }
  }
  const script = `import { createRequire } from 'node:module';
import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
const asks = JSON.parse(fs.readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(asks.map((a) => {
  try {
    return a.kind === 'require-call' ? createRequire(a.parent).resolve(a.spec) : fileURLToPath(import.meta.resolve(a.spec, pathToFileURL(a.parent).href));
  } catch (err) {
    return 'unresolvable: ' + String(err.message).split('\\n')[0];
  }
})));`;
  const r = spawnSync(
    process.execPath,
    ['--no-warnings', '--experimental-import-meta-resolve', '--input-type=module', '-e', script],
    { input: JSON.stringify(asks), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  if (r.status !== 0) throw new Error(`could not ask Node how it resolves the bundle's imports: ${r.stderr}`);
  const node = JSON.parse(r.stdout) as string[];
  const differ = asks.flatMap((a, i) =>
    node[i] === a.bundled
      ? []
      : [
          `${path.relative(root, a.parent)}: ${a.kind === 'require-call' ? 'require' : 'import'}('${a.spec}') bundled ${path.relative(root, a.bundled)}, Node loads ${node[i]!.startsWith('unresolvable') ? node[i] : path.relative(root, node[i]!)}`,
        ],
  );
  if (differ.length) throw new Error(`the bundle resolves modules differently from Node:\n  ${differ.join('\n  ')}`);
}

export interface BundleResult {
  readonly main: string;
  /** Worker bundles by their path below src/ with `.js` instead of `.ts`. */
  readonly workers: Record<string, string>;
  /** Every file esbuild put into the bundles (relative to root): the notices' source. */
  readonly inputs: string[];
}

export async function bundle(root: string, outDir: string, release?: string): Promise<BundleResult> {
  const srcDir = path.join(root, 'src');
  const workers = workerEntries(srcDir);
  const entryPoints: Record<string, string> = { burrow: path.join(srcDir, 'main.ts') };
  for (const w of workers) entryPoints[`workers/${w.replace(/\.ts$/, '')}`] = path.join(srcDir, w);
  fs.rmSync(outDir, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints,
    outdir: outDir,
    outExtension: { '.js': '.js' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    // No identifier mangling: stack traces in logs stay readable.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    // esbuild's own resolution for platform node, which is Node's: an `import` takes a
    // package's `import` export and a `require()` its `require` export. Forcing both
    // conditions (or `module` before `main`) hands a CommonJS `require` an ESM build, which
    // gives `{ default: fn }` where the package's CommonJS callers expect `fn` (yazl's
    // buffer-crc32 did: every zip download crashed the executable). `sameAsNode` checks it.
    // The release label is part of the executable (src/version.ts), not read from its environment.
    // No extra conditions: esbuild otherwise adds webpack's `module` condition, and a package
    // that lists it first (tslib) would hand its ESM build to CommonJS callers.
    conditions: [],
    define: {
      'import.meta.url': IMPORT_META_URL,
      ...(release ? { 'process.env.BURROW_BUILD_VERSION': JSON.stringify(release) } : {}),
    },
    banner: { js: BANNER },
    plugins: [burrowPlugin(root)],
    logLevel: 'warning',
    logOverride: { 'empty-import-meta': 'silent' },
    metafile: true,
  });
  if (result.errors.length) throw new Error('esbuild failed');
  sameAsNode(root, result.metafile!);
  for (const file of Object.keys(result.metafile!.outputs))
    if (file.endsWith('.js')) memoizeToEsm(path.join(root, file));
  return {
    main: path.join(outDir, 'burrow.js'),
    workers: Object.fromEntries(
      workers.map((w) => [w.replace(/\.ts$/, '.js'), path.join(outDir, 'workers', w.replace(/\.ts$/, '.js'))]),
    ),
    inputs: Object.keys(result.metafile!.inputs).filter((f) => !f.includes(':')),
  };
}
