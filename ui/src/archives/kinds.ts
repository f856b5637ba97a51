// Which files open like a folder (the server lists them: zip, the tar family, 7z, rar, iso…).
import { apiUrl, queryString } from '../api/client.ts';
const ARCHIVE = /\.(zip|jar|tar|tgz|tbz2?|txz|tar\.(gz|bz2|xz)|gz|bz2|xz|7z|rar|iso|cab|arj|lzh|wim|cpio|rpm|deb)$/i;

export const isArchiveName = (name: string) => ARCHIVE.test(name);

/** `/archive?path=<archive path>&inside=<folder in it>`: in the query, since a last segment like `x.zip` would be taken for a static file. */
export function archiveUrl(archivePath: string, inside = ''): string {
  return `/archive?${queryString({ path: archivePath, ...(inside ? { inside } : {}) })}`;
}

/** The entry's bytes, always an attachment (the server never serves it as a page). */
export const entryUrl = (archivePath: string, entry: string) =>
  apiUrl('GET /api/archive/entry', { query: { path: archivePath, entry } });
