// esbuild: src/main.ts and every src/**/*.worker.ts become self-contained CommonJS files
// that run inside the executable, where `require` knows only Node's built-in modules.
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
const BANNER = `var ${IMPORT_META_URL} = require("node:url").pathToFileURL(process.execPath).href;`;

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
        const prologue = 'var Module = (function () { try { var sea = require("node:sea"); if (sea.isSea()) return { wasmBinary: sea.getRawAsset("node-sqlite3-wasm.wasm") }; } catch (e) {} return undefined; })();\n';
        return { contents: prologue + source, loader: 'js' };
      });
      // ws: its optional speed-ups are absent; it catches the failed require and carries on.
      build.onResolve({ filter: /^(bufferutil|utf-8-validate)$/ }, (args) => ({ path: args.path, namespace: 'absent' }));
      build.onLoad({ filter: /.*/, namespace: 'absent' }, (args) => ({
        contents: `throw Object.assign(new Error("Cannot find module '${args.path}'"), { code: 'MODULE_NOT_FOUND' });`,
        loader: 'js',
      }));
      // A lazy `require('@napi-rs/image')` anywhere in src/ loads the add-on extracted from the
      // executable (src/native.ts); its failure is thrown where the require is, as from source.
      build.onResolve({ filter: NATIVE_PACKAGES }, (args) => {
        if (args.importer === nativeLoader) return undefined;
        const name = args.path === '@napi-rs/image' ? 'image' : args.path === '@lydell/node-pty' ? 'pty' : null;
        if (!name) return { errors: [{ text: `${args.path}: only the packages themselves can be loaded from inside the executable` }] };
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

export interface BundleResult {
  readonly main: string;
  /** Worker bundles by their path below src/ with `.js` instead of `.ts`. */
  readonly workers: Record<string, string>;
}

export async function bundle(root: string, outDir: string): Promise<BundleResult> {
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
    mainFields: ['module', 'main'],
    conditions: ['node', 'import', 'require'],
    define: { 'import.meta.url': IMPORT_META_URL },
    banner: { js: BANNER },
    plugins: [burrowPlugin(root)],
    logLevel: 'warning',
    logOverride: { 'empty-import-meta': 'silent' },
    metafile: true,
  });
  if (result.errors.length) throw new Error('esbuild failed');
  return {
    main: path.join(outDir, 'burrow.js'),
    workers: Object.fromEntries(workers.map((w) => [w.replace(/\.ts$/, '.js'), path.join(outDir, 'workers', w.replace(/\.ts$/, '.js'))])),
  };
}
