// Whole text files for the editor and the trash/version text reads: refused over the size
// limit (400) or when binary (415); decoded in the encoding the file has (BOM, UTF-8, Latin-1).
import fs from 'node:fs';
import { AppError } from '../core/errors.ts';
import { openFileIn, type OpenedFile } from './confined.ts';

export type TextEncoding = 'utf8' | 'utf8-bom' | 'utf16le' | 'latin1';

export function looksBinary(buf: Buffer): boolean {
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return false;
  const sample = buf.subarray(0, 8192);
  return sample.includes(0);
}

export function decodeText(buf: Buffer): { content: string; encoding: TextEncoding } {
  if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf)
    return { content: buf.subarray(3).toString('utf8'), encoding: 'utf8-bom' };
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe)
    return { content: buf.subarray(2).toString('utf16le'), encoding: 'utf16le' };
  try {
    return { content: new TextDecoder('utf-8', { fatal: true }).decode(buf), encoding: 'utf8' };
  } catch {
    return { content: buf.toString('latin1'), encoding: 'latin1' };
  }
}

export function encodeText(content: string, encoding: TextEncoding): Buffer {
  switch (encoding) {
    case 'utf8-bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(content, 'utf8')]);
    case 'utf16le':
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(content, 'utf16le')]);
    case 'latin1':
      return Buffer.from(content, 'latin1');
    default:
      return Buffer.from(content, 'utf8');
  }
}

const tooLarge = (maxBytes: number) =>
  new AppError('TOO_LARGE', `The file is larger than the editor limit (EDITOR_MAX_FILESIZE, ${maxBytes} bytes).`);

/** The bytes of an open, checked file, at most `maxBytes` (400 beyond); read through its descriptor. */
export async function readOpenedBytes(file: Pick<OpenedFile, 'fd' | 'stat'>, maxBytes: number): Promise<Buffer> {
  if (file.stat.size > maxBytes) throw tooLarge(maxBytes);
  // One byte more than allowed: a file grown since the fstat is refused, not cut.
  const buf = Buffer.allocUnsafe(Math.min(maxBytes, file.stat.size) + 1);
  let n = 0;
  for (;;) {
    const { bytesRead } = await new Promise<{ bytesRead: number }>((resolve, reject) =>
      fs.read(file.fd, buf, n, buf.length - n, n, (err, bytesRead) => (err ? reject(err) : resolve({ bytesRead }))),
    );
    if (bytesRead === 0) break;
    n += bytesRead;
    if (n === buf.length) throw tooLarge(maxBytes);
  }
  return buf.subarray(0, n);
}

/** The text of an open, checked file: 400 over `maxBytes`, 415 when binary. */
export async function readOpenedText(
  file: Pick<OpenedFile, 'fd' | 'stat'>,
  maxBytes: number,
): Promise<{ content: string; encoding: TextEncoding; size: number; mtimeMs: number }> {
  const buf = await readOpenedBytes(file, maxBytes);
  if (looksBinary(buf)) throw new AppError('BINARY');
  return { ...decodeText(buf), size: file.stat.size, mtimeMs: file.stat.mtimeMs };
}

/** Reads a whole text file inside `root` (confined at use): 400 over `maxBytes`, 415 when binary. */
export async function readTextFile(
  root: string,
  realPath: string,
  maxBytes: number,
): Promise<{ content: string; encoding: TextEncoding; size: number; mtimeMs: number }> {
  const file = await openFileIn(root, realPath);
  try {
    return await readOpenedText(file, maxBytes);
  } finally {
    await file.close();
  }
}
