// Real archives for the archive tests, made here: yazl and tar-stream for crafted names, the
// Debian tools (zip, 7zz/7z, gzip, bzip2, xz, tar, xorriso, gcab) for what other archivers write.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import tar, { type Header } from 'tar-stream';
import yazl from 'yazl';
import { ArchiveService, type ArchiveFile } from '../../src/archives/service.ts';
import type { ExtractEvent } from '../../src/archives/extract.ts';
import yauzl from 'yauzl';

export const tmp = (tag = 'archives') => fs.mkdtempSync(path.join(os.tmpdir(), `burrow-${tag}-`));

export function run(cmd: string, args: string[], cwd?: string): void {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr || r.stdout}`);
}

/** Debian's 7-Zip: `7zz` (package 7zip) or `7z`. A test that needs it fails when it is missing. */
export function sevenZipTool(): string {
  for (const c of ['7zz', '7z']) if (spawnSync('sh', ['-c', `command -v ${c}`]).status === 0) return c;
  throw new Error('7-Zip is not installed (Debian package 7zip): the 7z tests cannot run');
}

/** An ISO 9660 image of `src` with Rock Ridge and Joliet names (Debian's xorriso). */
export function isoImage(file: string, src: string): void {
  run('xorriso', ['-as', 'mkisofs', '-quiet', '-R', '-J', '-V', 'BURROW', '-o', file, src]);
}

/** A cabinet of `names` (relative to `src`) with MSZIP blocks (Debian's gcab); cabinets hold no folder entries. */
export function cabinet(file: string, src: string, names: string[]): void {
  run('gcab', ['-c', '-z', file, ...names], src);
}

/**
 * A RAR 4 archive of stored entries, written byte by byte from the RAR 2.9-4.x format (there is
 * no free RAR creator in Debian; storing is the one method that needs no RAR compressor): the
 * marker block, the archive header, one file header (method 0x30, store) per entry followed by
 * its bytes, and the end block. Header CRCs are the low 16 bits of CRC-32; names use '\\'.
 */
export function storedRar(
  file: string,
  entries: { name: string; data?: Buffer | string; dir?: boolean; mtime?: Date }[],
) {
  const block = (type: number, flags: number, body: Buffer, extra = Buffer.alloc(0)) => {
    const head = Buffer.alloc(7);
    head.writeUInt8(type, 2);
    head.writeUInt16LE(flags, 3);
    head.writeUInt16LE(7 + body.length, 5);
    const crc = zlib.crc32(Buffer.concat([head.subarray(2), body]));
    head.writeUInt16LE(crc & 0xffff, 0);
    return Buffer.concat([head, body, extra]);
  };
  const dosTime = (d: Date) =>
    (((d.getFullYear() - 1980) << 25) |
      ((d.getMonth() + 1) << 21) |
      (d.getDate() << 16) |
      (d.getHours() << 11) |
      (d.getMinutes() << 5) |
      (d.getSeconds() >> 1)) >>>
    0;
  const parts = [Buffer.from('Rar!\x1a\x07\x00', 'latin1'), block(0x73, 0, Buffer.alloc(6))];
  for (const e of entries) {
    const data = Buffer.from(e.data ?? '');
    const name = Buffer.from(e.name.replaceAll('/', '\\'), 'latin1');
    const body = Buffer.alloc(25);
    body.writeUInt32LE(data.length, 0); // packed size
    body.writeUInt32LE(data.length, 4); // unpacked size
    body.writeUInt8(2, 8); // host: Windows
    body.writeUInt32LE(zlib.crc32(data), 9);
    body.writeUInt32LE(dosTime(e.mtime ?? new Date(2024, 4, 1, 10, 0, 0)), 13);
    body.writeUInt8(20, 17); // version needed: 2.0
    body.writeUInt8(0x30, 18); // method: store
    body.writeUInt16LE(name.length, 19);
    body.writeUInt32LE(e.dir ? 0x10 : 0x20, 21); // DOS attributes: directory / archive
    // 0x8000: a data area follows (packed size); 0x00e0: the entry is a folder.
    parts.push(block(0x74, 0x8000 | (e.dir ? 0x00e0 : 0), Buffer.concat([body, name]), data));
  }
  parts.push(block(0x7b, 0, Buffer.alloc(0)));
  fs.writeFileSync(file, Buffer.concat(parts));
  // Read back by an independent RAR reader (libarchive's bsdtar): the fixture is a real RAR.
  const listed = spawnSync('bsdtar', ['-tf', file], { encoding: 'utf8' });
  const names = entries.map((e) => e.name).join('\n');
  if (listed.status !== 0 || listed.stdout.trim() !== names)
    throw new Error(`bsdtar does not read the RAR as written: ${listed.stderr || listed.stdout}`);
}

export async function yazlZip(
  file: string,
  entries: { name: string; data?: Buffer | string; dir?: boolean; compress?: boolean; mode?: number }[],
  zip64 = false,
): Promise<void> {
  const z = new yazl.ZipFile();
  for (const e of entries) {
    if (e.dir) z.addEmptyDirectory(e.name, {});
    else
      z.addBuffer(Buffer.from(e.data ?? ''), e.name, {
        compress: e.compress ?? true,
        forceZip64Format: zip64,
        ...(e.mode ? { mode: e.mode } : {}),
      });
  }
  z.end((zip64 ? { forceZip64Format: true } : {}) as Parameters<typeof z.end>[0]);
  await pipeline(z.outputStream, fs.createWriteStream(file));
}

export async function tarFile(
  file: string,
  entries: (Partial<Header> & { name: string; data?: Buffer | string })[],
): Promise<void> {
  const pack = tar.pack();
  const done = pipeline(pack, fs.createWriteStream(file));
  for (const { data, ...h } of entries) {
    await new Promise<void>((resolve, reject) =>
      pack.entry(
        { mtime: new Date('2024-05-01T10:00:00Z'), ...h },
        data === undefined ? '' : Buffer.from(data),
        (err) => (err ? reject(err) : resolve()),
      ),
    );
  }
  pack.finalize();
  await done;
}

export const archiveFile = (real: string): ArchiveFile => ({
  root: path.dirname(real),
  real,
  path: `vol/${path.basename(real)}`,
  name: path.basename(real),
});

export const service = (over: Partial<ConstructorParameters<typeof ArchiveService>[0]> = {}) =>
  new ArchiveService({ maxEntries: 200_000, maxBrowsableSize: 2 * 1024 ** 3, ...over });

export async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

/** Every file below `dir` with its bytes, paths with '/'. */
export function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        out[`${r}/`] = '';
        walk(r);
      } else if (e.isSymbolicLink()) out[r] = `-> ${fs.readlinkSync(path.join(dir, r))}`;
      else out[r] = fs.readFileSync(path.join(dir, r)).toString('latin1');
    }
  };
  walk('');
  return out;
}

export function collect(): { events: ExtractEvent[]; emit: (e: ExtractEvent) => void } {
  const events: ExtractEvent[] = [];
  return { events, emit: (e) => events.push(e) };
}

/** Renames entries in place (same byte length) in both headers: names yazl would refuse to write. */
export function patchZipNames(file: string, renames: Record<string, string>, clearUtf8 = false): void {
  const bytes = fs.readFileSync(file);
  for (let i = 0; i + 4 < bytes.length; i++) {
    const sig = bytes.readUInt32LE(i);
    const local = sig === 0x04034b50,
      central = sig === 0x02014b50;
    if (!local && !central) continue;
    const nameAt = i + (local ? 30 : 46),
      nameLen = bytes.readUInt16LE(i + (local ? 26 : 28));
    const to = renames[bytes.toString('latin1', nameAt, nameAt + nameLen)];
    if (to === undefined) continue;
    Buffer.from(to, 'latin1').copy(bytes, nameAt);
    if (clearUtf8) {
      const flagAt = i + (local ? 6 : 8);
      bytes.writeUInt16LE(bytes.readUInt16LE(flagAt) & ~0x800, flagAt);
    }
  }
  fs.writeFileSync(file, bytes);
}

/** uvu has no async throws: awaits `p` and checks its rejection. */
export async function rejects(p: Promise<unknown>, check: (err: any) => boolean, message?: string): Promise<void> {
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  if (err === undefined) throw new Error(`expected a rejection${message ? `: ${message}` : ''}`);
  if (!check(err))
    throw new Error(
      `unexpected rejection${message ? ` (${message})` : ''}: ${(err as any)?.status} ${(err as Error)?.message}`,
    );
}

/** `count` small files in 100 folders, zipped by Debian's zip (stored, no folder entries). */
export function manyEntryZip(file: string, count: number): void {
  const src = fs.mkdtempSync(path.join(path.dirname(file), 'many-'));
  for (let d = 0; d < 100; d++) fs.mkdirSync(path.join(src, `d${d}`));
  for (let i = 0; i < count; i++) fs.writeFileSync(path.join(src, `d${i % 100}`, `f${i}.txt`), `${i}`);
  run('zip', ['-q', '-0', '-r', '-D', file, '.'], src);
  fs.rmSync(src, { recursive: true, force: true });
}

/** Every entry of a zip (folders too, with no bytes) with its method and bytes, read by yauzl — a reader other than unzip. */
export function zipEntries(buf: Buffer): Promise<Map<string, { method: number; data: Buffer }>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buf, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      const out = new Map<string, { method: number; data: Buffer }>();
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith('/')) {
          out.set(entry.fileName, { method: entry.compressionMethod, data: Buffer.alloc(0) });
          return zip.readEntry();
        }
        zip.openReadStream(entry, (e, stream) => {
          if (e) return reject(e);
          const chunks: Buffer[] = [];
          stream.on('data', (d: Buffer) => chunks.push(d));
          stream.on('end', () => {
            out.set(entry.fileName, { method: entry.compressionMethod, data: Buffer.concat(chunks) });
            zip.readEntry();
          });
          stream.on('error', reject);
        });
      });
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}
