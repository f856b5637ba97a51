// `npm run build`: the UI (vite), the server bundle (esbuild) and one executable per target
// (@yao-pkg/pkg in SEA mode) in dist/, with SHA256SUMS. See build/README.md.
//
//   node build/build.ts                     every target
//   node build/build.ts --target linux-x64  only these (comma-separated, or `host`)
//   node build/build.ts --no-ui             without the web interface (API only)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { collectMigrations } from '../src/db/migrations.ts';
import {
  NOTICES_ASSET,
  packageDirOf,
  readPackage,
  renderNotices,
  runningNodeLicense,
  type NoticePackage,
} from '../src/system/notices.ts';
import { bundle } from './bundle.ts';
import { BUILD_INFO, inputHash, type BuildInfo } from './inputs.ts';
import { filesBelow, savePack, type BuiltPack, type PackFile } from './pack.ts';
import {
  allTargets,
  hostTargetId,
  installedVersion,
  npmPackage,
  packageFolder,
  stripLinuxBinary,
  stripMacBinary,
  type Target,
} from './targets.ts';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const dist = path.join(root, 'dist');
const work = path.join(root, '.tmp', 'build');
const cache = path.join(root, '.tmp', 'build-cache');
/** Where vite lists the modules of the UI bundle (ui/vite.config.ts moduleList). */
const uiModules = path.join(work, 'ui-modules.json');

/**
 * No V8 options baked into the executable (SEA `execArgv`): any V8 flag on the command line
 * changes V8's flag hash, and V8 then rejects every code cache made without it — Node's own
 * for its built-in modules (~45 ms of compiling at each start) and the bundle's (below). The
 * one flag the executable needs, SQLite's WebAssembly on the baseline compiler only, is set at
 * run time just before that module compiles (src/db/wasm-tier.ts).
 */
const SEA_EXEC_ARGV: string[] = [];

function log(msg: string): void {
  process.stdout.write(`[build] ${msg}\n`);
}

/** vite build of ui/ when it has an index.html; a failing UI build fails the whole build. */
function buildUi(skip: boolean): string | null {
  if (skip) {
    log('ui: skipped (--no-ui)');
    return null;
  }
  const uiRoot = path.join(root, 'ui');
  const uiDist = path.join(uiRoot, 'dist');
  if (fs.existsSync(path.join(uiRoot, 'index.html'))) {
    log('ui: vite build');
    const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js');
    const r = spawnSync(
      process.execPath,
      [vite, 'build', 'ui', '--config', 'ui/vite.config.ts', '--logLevel', 'warn'],
      { cwd: root, stdio: 'inherit', env: { ...process.env, BURROW_UI_MODULES: uiModules } },
    );
    if (r.status !== 0)
      throw new Error(
        `the UI build failed (vite exited with ${r.status ?? r.signal}); fix ui/ or run \`npm run build:ui\` to see why`,
      );
  } else {
    log('ui: no ui/index.html, embedding ui/dist as it is');
  }
  return fs.existsSync(path.join(uiDist, 'index.html')) ? uiDist : null;
}

/** The pack of one native add-on for one target: the package's JS + its platform package. */
async function addonPack(name: 'image' | 'pty', target: Target): Promise<BuiltPack> {
  const main = name === 'image' ? '@napi-rs/image' : '@lydell/node-pty';
  const platformPkg = name === 'image' ? target.imagePackage : target.ptyPackage;
  const version = installedVersion(root, main);
  const mainDir = path.join(root, 'node_modules', main);
  const platformDir = await packageFolder(root, platformPkg, version, path.join(cache, 'packages'));
  const noise = (rel: string) => /\.(md|d\.ts|pdb|map)$/.test(rel) || rel === 'LICENSE' || rel === '.complete';
  const files: PackFile[] = [
    ...filesBelow(mainDir, `node_modules/${main}/`, noise),
    ...filesBelow(platformDir, `node_modules/${platformPkg}/`, noise),
  ];
  return savePack(files, path.join(work, target.id, `addon-${name}.pack`), true);
}

/** The C compiler of each Linux target (Debian's packages gcc and gcc-aarch64-linux-gnu). */
const LINUX_CC: Partial<Record<Target['id'], string>> = {
  'linux-x64': 'x86_64-linux-gnu-gcc',
  'linux-arm64': 'aarch64-linux-gnu-gcc',
};

/**
 * The pack of Burrow's own add-on for a Linux target: src/core/malloc-trim.c compiled with the
 * target's C compiler (glibc's malloc_trim, which Node does not offer). Other targets have no
 * glibc and get none. Without the compiler the executable is built without it — it still runs,
 * keeping glibc's free memory — and the build says so (the binary tests fail on such a build).
 */
function trimPack(target: Target): BuiltPack | null {
  const cc = LINUX_CC[target.id];
  if (!cc) return null;
  const out = path.join(work, target.id, 'malloc-trim.node');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const source = path.join(root, 'src', 'core', 'malloc-trim.c');
  const flags = ['-O2', '-shared', '-fPIC', '-fvisibility=hidden', '-Wall', '-Werror', '-s'];
  const r = spawnSync(cc, [...flags, '-o', out, source], { encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    log(
      `${target.id}: WARNING: ${cc} ${r.error ? 'is not installed' : `failed: ${r.stderr.trim()}`}; this executable keeps glibc's free memory (apt install ${cc === 'aarch64-linux-gnu-gcc' ? 'gcc-aarch64-linux-gnu' : 'gcc'})`,
    );
    return null;
  }
  return savePack([{ path: 'malloc-trim.node', source: out }], path.join(work, target.id, 'addon-trim.pack'), true);
}

/** The packages whose files are among `files` (bundle inputs, UI modules), each once. */
function packagesOf(files: readonly string[]): NoticePackage[] {
  const dirs = new Set<string>();
  for (const f of files) {
    const dir = packageDirOf(root, f.replace(/^\0+/, '').replace(/\?.*$/, ''));
    if (dir && fs.existsSync(path.join(dir, 'package.json'))) dirs.add(dir);
  }
  return [...dirs].map(readPackage);
}

/** Node's licence for a target: the running Node's when it is the target's, else the npm package's. */
async function nodeLicense(target: Target): Promise<string> {
  const isHost = target.id === hostTargetId() && target.node.version === process.version.slice(1);
  const local = isHost ? runningNodeLicense() : null;
  if (local) return local;
  const dir = await npmPackage(target.node.name, target.node.version, path.join(cache, 'packages'));
  return fs.readFileSync(path.join(dir, 'LICENSE'), 'utf8');
}

interface NoticeParts {
  packages: NoticePackage[];
  node: { version: string; text: string };
}

/** What one target's executable carries: the shared packages + its add-ons + its Node. */
async function targetNotices(target: Target, shared: NoticePackage[]): Promise<NoticeParts> {
  const addons: NoticePackage[] = [];
  for (const [main, platformPkg] of [
    ['@napi-rs/image', target.imagePackage],
    ['@lydell/node-pty', target.ptyPackage],
  ] as const) {
    const version = installedVersion(root, main);
    addons.push(readPackage(path.join(root, 'node_modules', main)));
    addons.push(readPackage(await packageFolder(root, platformPkg, version, path.join(cache, 'packages'))));
  }
  return { packages: [...shared, ...addons], node: { version: target.node.version, text: await nodeLicense(target) } };
}

/** The base Node binary for a target, stripped where possible, placed where pkg looks for it. */
async function seedBaseBinary(target: Target): Promise<void> {
  const nodeOs = target.platform === 'macos' ? 'darwin' : target.platform;
  const base = `node-v${target.node.version}-${nodeOs}-${target.arch}`;
  const seaCache = path.join(os.homedir(), '.pkg-cache', 'sea');
  const binary =
    target.platform === 'win' ? path.join(seaCache, `${base}.exe`) : path.join(seaCache, base, 'bin', 'node');
  const archive = path.join(seaCache, `${base}.${target.platform === 'win' ? 'zip' : 'tar.gz'}`);
  // A macOS base seeded before it was stripped is seeded again (the marker says it was).
  const stripped = target.platform !== 'macos' || fs.existsSync(`${binary}.stripped`);
  if (stripped && fs.existsSync(`${binary}.ok`) && fs.existsSync(binary) && fs.existsSync(`${archive}.ok`)) return;
  const isHost = target.id === hostTargetId() && target.node.version === process.version.slice(1);
  const source = isHost
    ? process.execPath
    : path.join(
        await npmPackage(target.node.name, target.node.version, path.join(cache, 'packages')),
        target.node.file,
      );
  fs.mkdirSync(path.dirname(binary), { recursive: true });
  const temp = `${binary}.tmp`;
  fs.copyFileSync(source, temp);
  fs.chmodSync(temp, 0o755);
  if (target.platform === 'linux') {
    if (stripLinuxBinary(temp, target.arch))
      log(`${target.id}: stripped the base binary (${(fs.statSync(temp).size / 1e6).toFixed(1)} MB)`);
    else log(`${target.id}: no strip tool for this binary, kept its debug information`);
  }
  let macStripped = false;
  if (target.platform === 'macos') {
    macStripped = stripMacBinary(temp);
    log(
      macStripped
        ? `${target.id}: stripped the base binary's local symbols (${(fs.statSync(temp).size / 1e6).toFixed(1)} MB)`
        : `${target.id}: llvm-strip missing or failed, kept the base binary's local symbols`,
    );
  }
  fs.renameSync(temp, binary);
  if (macStripped) fs.writeFileSync(`${binary}.stripped`, '');
  // pkg trusts a binary beside `.ok` markers and skips its download from the Node site.
  fs.writeFileSync(`${binary}.ok`, '');
  if (!fs.existsSync(archive)) fs.writeFileSync(archive, '');
  fs.writeFileSync(`${archive}.ok`, '');
}

/** pkg builds the blob with a Node of the target's exact version running here. */
async function seedBlobGenerator(target: Target): Promise<void> {
  if (target.node.version === process.version.slice(1)) return;
  const host = allTargets().find((t) => t.id === hostTargetId());
  if (!host) throw new Error(`no build host support for ${process.platform}-${process.arch}`);
  await seedBaseBinary({ ...host, node: { ...host.node, version: target.node.version } });
}

async function packageTarget(
  target: Target,
  shared: Record<string, string>,
  mainBundle: string,
  packs: Record<string, BuiltPack>,
  notices: string,
): Promise<string> {
  const pkgSea = createRequire(import.meta.url)('@yao-pkg/pkg/lib-es5/sea.js') as {
    default: (entry: string, opts: unknown) => Promise<void>;
  };
  await seedBaseBinary(target);
  await seedBlobGenerator(target);
  const addons = { 'addon-image': await addonPack('image', target), 'addon-pty': await addonPack('pty', target) };
  const trim = trimPack(target);
  const allPacks = { ...packs, ...addons, ...(trim ? { 'addon-trim': trim } : {}) };
  const packsJson = path.join(work, target.id, 'packs.json');
  fs.writeFileSync(
    packsJson,
    JSON.stringify(
      Object.fromEntries(Object.entries(allPacks).map(([k, p]) => [k, { hash: p.hash, compressed: p.compressed }])),
    ),
  );
  const noticesFile = path.join(work, target.id, NOTICES_ASSET);
  fs.writeFileSync(noticesFile, notices);
  const assets: Record<string, string> = { ...shared, 'packs.json': packsJson, [NOTICES_ASSET]: noticesFile };
  for (const [name, p] of Object.entries(allPacks)) assets[`${name}.pack`] = p.file;
  const output = path.join(dist, target.output);
  fs.rmSync(output, { force: true });
  log(`${target.id}: packaging with pkg --sea (Node ${target.node.version})`);
  // The bundle's V8 code cache, for the build machine's own target: it is only valid for the
  // V8 (and the flags) that made it, and pkg makes it with the Node running this build. Read at
  // start instead of parsing 2.9 MB of JavaScript: ~80 ms less at a cold start, and the
  // parser's ~8 MB of malloc that glibc kept for the life of the process (build/README.md).
  const useCodeCache = target.id === hostTargetId() && target.node.version === process.version.slice(1);
  await pkgSea.default(mainBundle, {
    targets: [{ nodeRange: `node${target.node.version}`, platform: target.platform, arch: target.arch, output }],
    signature: true,
    seaConfig: {
      disableExperimentalSEAWarning: true,
      useSnapshot: false,
      useCodeCache,
      assets,
      execArgv: SEA_EXEC_ARGV,
    },
  });
  if (!fs.existsSync(output)) throw new Error(`pkg produced no ${target.output}`);
  // A failed injection leaves a bare Node: the blob's sentinel must be armed (":1").
  if (!fs.readFileSync(output).includes('NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1'))
    throw new Error(`${target.output} carries no SEA blob`);
  return output;
}

function readBuildInfo(): BuildInfo | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dist, BUILD_INFO), 'utf8')) as BuildInfo;
  } catch {
    return null;
  }
}

/** The release stamped into the executable (BURROW_RELEASE, or package.json's version). */
export function releaseLabel(): string {
  return (
    process.env.BURROW_RELEASE?.trim() ||
    (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { target: { type: 'string', short: 't' }, 'no-ui': { type: 'boolean' } } });
  const known = allTargets();
  const wanted = values.target
    ? values.target.split(',').map((t) => (t === 'host' ? hostTargetId() : t))
    : known.map((t) => t.id);
  const targets = wanted.map(
    (id) =>
      known.find((t) => t.id === id) ??
      (() => {
        throw new Error(`unknown target ${id}; known: ${known.map((t) => t.id).join(', ')}, host`);
      })(),
  );
  const inputs = inputHash(root);
  const started = Date.now();
  fs.mkdirSync(dist, { recursive: true });
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });

  const uiDist = buildUi(values['no-ui'] === true);
  log('bundle: esbuild');
  const bundled = await bundle(root, path.join(work, 'bundle'), releaseLabel());
  const migrationsJson = path.join(work, 'migrations.json');
  fs.writeFileSync(migrationsJson, JSON.stringify(collectMigrations(path.join(root, 'src'))));
  const shared: Record<string, string> = {
    'migrations.json': migrationsJson,
    'node-sqlite3-wasm.wasm': path.join(root, 'node_modules', 'node-sqlite3-wasm', 'dist', 'node-sqlite3-wasm.wasm'),
    // 7-Zip in WebAssembly (archives/sevenzip.ts reads it lazily, on the first 7z/rar/iso).
    '7zz.wasm': path.join(root, 'node_modules', '7z-wasm', '7zz.wasm'),
  };
  // Workers brotli-compressed (src/workers.ts decompresses one as it starts it): the largest carry
  // pdf.js and libheif's WebAssembly as text, 4.4 MB of the blob raw, 1.4 MB packed.
  for (const [rel, file] of Object.entries(bundled.workers)) {
    const packed = path.join(work, 'workers', `${rel}.br`);
    fs.mkdirSync(path.dirname(packed), { recursive: true });
    fs.writeFileSync(
      packed,
      zlib.brotliCompressSync(fs.readFileSync(file), { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9 } }),
    );
    shared[`workers/${rel}.br`] = packed;
  }
  // Every third-party package inside: the bundles' inputs (server, workers), the UI's modules,
  // the packages of the embedded .wasm files; each target adds its add-ons and its Node.
  const sharedPackages = packagesOf([
    ...bundled.inputs,
    ...(uiDist && fs.existsSync(uiModules) ? (JSON.parse(fs.readFileSync(uiModules, 'utf8')) as string[]) : []),
    'node_modules/node-sqlite3-wasm/package.json',
    'node_modules/7z-wasm/package.json',
  ]);
  const packs: Record<string, BuiltPack> = {};
  if (uiDist) packs.ui = savePack(filesBelow(uiDist), path.join(work, 'ui.pack'), true);
  else log('ui: nothing to embed (no ui/dist/index.html); the executable answers 503 on UI paths');

  // Targets built earlier from the same inputs stay listed (a CI run builds linux-x64, then linux-arm64).
  const earlier = readBuildInfo();
  const keep = earlier?.inputs === inputs ? earlier : null;
  const release = releaseLabel();
  const info: BuildInfo = {
    inputs,
    ui: uiDist !== null,
    release,
    targets: Object.fromEntries(
      Object.entries(keep?.targets ?? {}).filter(
        ([id, t]) => !targets.some((x) => x.id === id) && fs.existsSync(path.join(dist, t.file)),
      ),
    ),
    skipped: {},
    manifest: {
      release,
      builtWith: process.version,
      addons: Object.fromEntries(
        ['@napi-rs/image', '@lydell/node-pty', 'node-sqlite3-wasm'].map((n) => [n, installedVersion(root, n)]),
      ),
      node: { ...keep?.manifest?.node },
    },
  };
  const allNotices: NoticeParts[] = [];
  for (const target of targets) {
    try {
      const notices = await targetNotices(target, sharedPackages);
      const file = await packageTarget(
        target,
        shared,
        bundled.main,
        packs,
        renderNotices(notices.packages, notices.node),
      );
      allNotices.push(notices);
      const sha256 = createHash('sha256').update(fs.readFileSync(file)).digest('hex');
      info.targets[target.id] = { file: path.basename(file), bytes: fs.statSync(file).size, sha256 };
      info.manifest!.node[target.id] = target.node.version;
      log(`${target.id}: ${path.basename(file)} ${(fs.statSync(file).size / 1e6).toFixed(1)} MB`);
    } catch (err) {
      if (values.target) throw err;
      // With every target asked for, one that cannot be built here is reported, not fatal.
      info.skipped[target.id] = (err as Error).message;
      log(`${target.id}: NOT BUILT: ${(err as Error).message}`);
    }
  }
  const sums = Object.values(info.targets)
    .map((t) => `${t.sha256}  ${t.file}`)
    .join('\n');
  fs.writeFileSync(path.join(dist, 'SHA256SUMS'), sums ? `${sums}\n` : '');
  fs.writeFileSync(path.join(dist, BUILD_INFO), JSON.stringify(info, null, 2) + '\n');
  // Beside the executables: the notices of the targets built now (they differ in add-on
  // platform packages and Node), with the same text for the packages they share.
  if (allNotices.length)
    fs.writeFileSync(
      path.join(dist, NOTICES_ASSET),
      renderNotices(
        allNotices.flatMap((n) => n.packages),
        {
          version: [...new Set(allNotices.map((n) => n.node.version))].join(', '),
          text: allNotices[0]!.node.text,
        },
      ),
    );
  log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (Object.keys(info.targets).length === 0) process.exit(1);
}

main().catch((err) => {
  process.stderr.write(`[build] FAILED: ${(err as Error).message}\n`);
  process.exit(1);
});
