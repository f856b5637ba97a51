// FileItem as the native client decodes it (wire-shapes §1.1): `path` is the parent folder.
import type { Stats } from 'node:fs';
import { z } from 'zod';

export interface FileItem {
  name: string;
  path: string;
  dateModified: string;
  size: number;
  kind: string;
  supportsThumbnail?: boolean;
}

/** The one wire schema of a FileItem (answers of every capability that returns items). */
export const wireFileItem = z.object({
  name: z.string(),
  path: z.string(),
  dateModified: z.string(),
  size: z.number().int(),
  kind: z.string(),
  supportsThumbnail: z.boolean().optional(),
});

/** `directory`, the lower-cased extension, or `unknown` (none, or longer than 10). */
export function kindOf(name: string, isDirectory: boolean): string {
  if (isDirectory) return 'directory';
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || dot === name.length - 1) return 'unknown';
  const ext = name.slice(dot + 1).toLowerCase();
  return ext.length > 10 ? 'unknown' : ext;
}

/** Kinds src/previews/thumbnails.ts can make a picture of (videos only when ffmpeg is installed: the thumbnail is then "" otherwise; never PDF). */
export const THUMBNAIL_KINDS: ReadonlySet<string> = new Set(['jpg', 'jpeg', 'png', 'webp', 'avif', 'bmp', 'ico', 'tif', 'tiff', 'gif', 'svg', 'mp4', 'm4v', 'mov', 'webm', 'mkv', 'ogv', 'avi', '3gp']);

export function fileItem(parent: string, name: string, stats: Pick<Stats, 'mtime' | 'size' | 'isDirectory'>): FileItem {
  const isDirectory = stats.isDirectory();
  const kind = kindOf(name, isDirectory);
  const item: FileItem = { name, path: parent, dateModified: stats.mtime.toISOString(), size: isDirectory ? 0 : stats.size, kind };
  if (THUMBNAIL_KINDS.has(kind) && stats.size > 0) item.supportsThumbnail = true;
  return item;
}

/** Splits a full virtual path into its parent and name. */
export function splitVirtual(full: string): { parent: string; name: string } {
  const i = full.lastIndexOf('/');
  return i < 0 ? { parent: '', name: full } : { parent: full.slice(0, i), name: full.slice(i + 1) };
}
