// Whole text files for the editor and the trash/version text reads: refused over the size
// limit (400) or when binary (415); decoded in the encoding the file has (BOM, UTF-8, Latin-1).
import fsp from 'node:fs/promises';
import { AppError } from '../http/errors.ts';

export type TextEncoding = 'utf8' | 'utf8-bom' | 'utf16le' | 'latin1';

export function looksBinary(buf: Buffer): boolean {
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return false;
  const sample = buf.subarray(0, 8192);
  return sample.includes(0);
}

export function decodeText(buf: Buffer): { content: string; encoding: TextEncoding } {
  if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) return { content: buf.subarray(3).toString('utf8'), encoding: 'utf8-bom' };
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return { content: buf.subarray(2).toString('utf16le'), encoding: 'utf16le' };
  try {
    return { content: new TextDecoder('utf-8', { fatal: true }).decode(buf), encoding: 'utf8' };
  } catch {
    return { content: buf.toString('latin1'), encoding: 'latin1' };
  }
}

export function encodeText(content: string, encoding: TextEncoding): Buffer {
  switch (encoding) {
    case 'utf8-bom': return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(content, 'utf8')]);
    case 'utf16le': return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(content, 'utf16le')]);
    case 'latin1': return Buffer.from(content, 'latin1');
    default: return Buffer.from(content, 'utf8');
  }
}

/** Reads a whole text file: 400 over `maxBytes`, 415 when binary. */
export async function readTextFile(realPath: string, maxBytes: number): Promise<{ content: string; encoding: TextEncoding; size: number; mtimeMs: number }> {
  const stats = await fsp.stat(realPath);
  if (stats.isDirectory()) throw new AppError(400, 'That is a folder, not a file.', 'IS_A_FOLDER');
  if (stats.size > maxBytes) throw new AppError(400, `The file is larger than the editor limit (EDITOR_MAX_FILESIZE, ${maxBytes} bytes).`, 'TOO_LARGE');
  const buf = await fsp.readFile(realPath);
  if (buf.length > maxBytes) throw new AppError(400, `The file is larger than the editor limit (EDITOR_MAX_FILESIZE, ${maxBytes} bytes).`, 'TOO_LARGE');
  if (looksBinary(buf)) throw new AppError(415, 'This is a binary file, not text.', 'BINARY');
  return { ...decodeText(buf), size: stats.size, mtimeMs: stats.mtimeMs };
}
