// A pack: a folder tree as one asset. Layout: u32 LE header length, JSON header
// `[{ path, size, mode }]` (paths with `/`), then every file's bytes in header order.
// Read by unpack() in src/assets.ts.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { createHash } from 'node:crypto';

export interface PackFile {
  /** Path inside the pack, with `/`. */
  readonly path: string;
  /** File on disk. */
  readonly source: string;
}

/** Every file below `dir`, as pack entries under `prefix`. */
export function filesBelow(dir: string, prefix = '', skip: (rel: string) => boolean = () => false): PackFile[] {
  const out: PackFile[] = [];
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (skip(child)) continue;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) out.push({ path: prefix + child, source: path.join(dir, child) });
    }
  };
  walk('');
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export function writePack(files: readonly PackFile[]): Buffer {
  const contents = files.map((f) => fs.readFileSync(f.source));
  const header = Buffer.from(
    JSON.stringify(
      files.map((f, i) => ({
        path: f.path,
        size: contents[i]!.length,
        // Keep the executable bit (spawn-helper, .node files); nothing else matters here.
        mode: fs.statSync(f.source).mode & 0o111 ? 0o755 : 0o644,
      })),
    ),
  );
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  return Buffer.concat([length, header, ...contents]);
}

export interface BuiltPack {
  readonly file: string;
  readonly hash: string;
  readonly compressed: boolean;
}

/** Writes the pack to `file`, brotli-compressed when asked (native add-ons: 18 MB → a third). */
export function savePack(files: readonly PackFile[], file: string, compress: boolean): BuiltPack {
  let bytes = writePack(files);
  if (compress) {
    bytes = zlib.brotliCompressSync(bytes, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: 9,
        [zlib.constants.BROTLI_PARAM_LGWIN]: 24,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    });
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, bytes);
  return { file, hash: createHash('sha256').update(bytes).digest('hex'), compressed: compress };
}
