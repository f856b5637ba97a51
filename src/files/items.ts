// The one builder of a FileItem (its schema is files/wire.ts): every answer that carries an
// item makes it here, so kind and supportsThumbnail mean the same everywhere.
import type { Stats } from 'node:fs';
import { fileItem as fileItemSchema, type FileItem } from './wire.ts';
import { THUMBNAIL_KINDS } from './kinds.ts';

export type { FileItem };
/** The FileItem schema under the name archives/ imports. */
export const wireFileItem = fileItemSchema;

/** `directory`, the lower-cased extension, or `unknown` (none, or longer than 10). */
export function kindOf(name: string, isDirectory: boolean): string {
  if (isDirectory) return 'directory';
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || dot === name.length - 1) return 'unknown';
  const ext = name.slice(dot + 1).toLowerCase();
  return ext.length > 10 ? 'unknown' : ext;
}

export function fileItem(parent: string, name: string, stats: Pick<Stats, 'mtime' | 'size' | 'isDirectory'>): FileItem {
  return itemOf(parent, name, { modified: stats.mtime, size: stats.size, isDirectory: stats.isDirectory() });
}

/** The Date's own ISO text up to the second, kept from the last call: a folder's files mostly share it. */
let lastSecond = NaN;
let lastPrefix = '';
/** Years 0000-9999 have the plain ISO form; the rest (and NaN) get the Date's own text. */
const PLAIN_ISO_UNTIL = 253402300800000;

/** `new Date(ms).toISOString()` without a Date per call (a listing makes one per entry). */
export function isoTime(ms: number): string {
  if (!(ms >= 0 && ms < PLAIN_ISO_UNTIL)) return new Date(ms).toISOString();
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastPrefix = new Date(second * 1000).toISOString().slice(0, 20);
    lastSecond = second;
  }
  const milli = Math.floor(ms) - second * 1000;
  return lastPrefix + (milli < 10 ? '00' : milli < 100 ? '0' : '') + milli + 'Z';
}

/** The same from plain facts (an upload placed, an entry listed without a Stats; `modified` a Date or ms). */
export function itemOf(
  parent: string,
  name: string,
  facts: { modified: Date | number; size: number; isDirectory: boolean },
): FileItem {
  const kind = kindOf(name, facts.isDirectory);
  const item: FileItem = {
    name,
    path: parent,
    dateModified: typeof facts.modified === 'number' ? isoTime(facts.modified) : facts.modified.toISOString(),
    size: facts.isDirectory ? 0 : facts.size,
    kind,
  };
  if (THUMBNAIL_KINDS.has(kind) && facts.size > 0) item.supportsThumbnail = true;
  return item;
}

/** Splits a full virtual path into its parent and name. */
export function splitVirtual(full: string): { parent: string; name: string } {
  const i = full.lastIndexOf('/');
  return i < 0 ? { parent: '', name: full } : { parent: full.slice(0, i), name: full.slice(i + 1) };
}
