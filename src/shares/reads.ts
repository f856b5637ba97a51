// What a link holder reads: a folder's listing, one file, or a download (one file, or a zip of
// the items). Paths are relative to the link and resolved as `share/<token>/…` by the one
// resolver, which confines them to the shared item; the link's allow flags narrow what it gives.
import path from 'node:path';
import { AppError } from '../core/errors.ts';
import { contentTypeOf } from '../http/file.ts';
import type { Download } from '../http/download.ts';
import { openFileIn } from '../files/confined.ts';
import { openSources, zipAnswer } from '../downloads/zip.ts';
import { itemOf } from '../files/items.ts';
import { joinVirtual, type PathResolver, type InsidePath } from '../files/paths.ts';
import type { createBrowse } from '../browse/service.ts';
import type { Listing } from '../browse/wire.ts';
import type { FileOps } from '../files/ops.ts';
import type { ConflictsAnswer } from '../files/wire.ts';
import type { LinkHolder, LinkHolding, TakeAsk, Taken } from './holder.ts';
import { linkPatches, locationPatches } from '../metadata/location.ts';

/** `share/<token>/<rel>` — rel is checked again by the resolver (no `..`, no encoded escapes). */
export const inLink = (token: string, rel: string) => joinVirtual(`share/${token}`, rel.replace(/^\/+|\/+$/g, ''));

/**
 * A path inside a link as its holder names it: for a link to one file, the file's own name (as
 * the link's listing shows it) is the link itself.
 */
export function inHeldLink(row: { token: string; path: string; is_directory: number }, rel: string): string {
  const trimmed = rel.replace(/^\/+|\/+$/g, '');
  return inLink(row.token, !row.is_directory && trimmed === path.posix.basename(row.path) ? '' : trimmed);
}

/** Types a browser would run as a page on our origin: never inline through a link. */
const ACTIVE =
  /^(text\/html|application\/xhtml\+xml|image\/svg\+xml|text\/xml|application\/xml|text\/javascript|application\/javascript)/;

/** The name a link's file goes by: its own, also when it is the link itself. */
export const linkFileName = (r: InsidePath) =>
  r.relative === '' && r.space ? r.space.name : path.posix.basename(r.virtualPath);

/** Whether a file of a link is sent as an attachment: asked for, or an active type (never inline). */
export const asAttachment = (name: string, mode: 'download' | 'inline' | 'raw') =>
  mode === 'download' || ACTIVE.test(contentTypeOf(name));

export function createLinkReads(deps: {
  shares: LinkHolding;
  resolver: PathResolver;
  browse: ReturnType<typeof createBrowse>;
  ops: Pick<FileOps, 'conflicts'>;
}) {
  const { shares, resolver } = deps;
  const noDownloads = () => new AppError('LINK_NOT_ALLOWED', 'This link does not allow downloads.');

  return {
    async listing(h: LinkHolder, rel: string): Promise<Listing> {
      const r = await resolver.resolveInside(h.caller, inHeldLink(h.row, rel), { mustExist: true });
      if (!r.access.canRead) throw new AppError('LINK_NOT_ALLOWED', 'This link takes files; it shows nothing.');
      shares.touch(h.row, false);
      const { listing } = await deps.browse.list(h.caller, r.virtualPath);
      if (r.isDirectory) return listing;
      // A link to one file: its one item is that file, under its own name and kind, in the link
      // (`share/<token>` + its name opens it, as a folder link's items do).
      return {
        ...listing,
        items: listing.items.map((i) =>
          itemOf(r.virtualPath, linkFileName(r), {
            modified: new Date(i.dateModified),
            size: i.size,
            isDirectory: false,
          }),
        ),
      };
    },

    /**
     * One file to send. Viewing it (inline, sandboxed) needs the link to show it; taking it away
     * (a download, or an active type, which only ever comes as an attachment) needs downloads on.
     * A download counts as one on the link; on a limited link a view counts too (holder.ts: TakeAsk).
     */
    async file(
      h: LinkHolder,
      rel: string,
      mode: 'download' | 'inline' | 'raw',
      ask: TakeAsk,
    ): Promise<{ item: InsidePath; taken: Taken }> {
      const r = await resolver.resolveInside(h.caller, inHeldLink(h.row, rel), { mustExist: true });
      if (r.isDirectory) throw new AppError('IS_A_FOLDER');
      if (asAttachment(linkFileName(r), mode) ? !r.access.canDownload : !r.access.canRead) throw noDownloads();
      return { item: r, taken: shares.take(h.row, ask, mode === 'download', r.virtualPath) };
    },

    /**
     * The names an upload into `rel` would find taken (POST /api/share/{token}/conflicts), for a
     * holder who may see the folder anyway: a file request shows nothing, so it tells nothing
     * (its uploads keep both).
     */
    async conflicts(h: LinkHolder, rel: string, names: string[]): Promise<ConflictsAnswer> {
      const r = await resolver.resolveInside(h.caller, inHeldLink(h.row, rel), { mustExist: true });
      if (!r.access.canRead) throw new AppError('LINK_NOT_ALLOWED', 'This link takes files; it shows nothing.');
      return deps.ops.conflicts(h.caller, { destination: r.virtualPath, names });
    },

    /**
     * A file whose thumbnail a holder may see: what the link lets them list, they may see small.
     * A screen-sized rendition (`screen`: the ask) is a view of the file: a limited link counts
     * it; a list's small one counts nothing.
     */
    async picture(h: LinkHolder, rel: string, screen?: TakeAsk): Promise<{ item: InsidePath; taken: Taken }> {
      const r = await resolver.resolveInside(h.caller, inHeldLink(h.row, rel), { mustExist: true });
      if (r.isDirectory) throw new AppError('IS_A_FOLDER');
      if (!r.access.canRead) throw new AppError('LINK_NOT_ALLOWED', 'This link takes files; it shows nothing.');
      const taken = screen && h.row.max_downloads !== null ? shares.take(h.row, screen, false, r.virtualPath) : {};
      return { item: r, taken };
    },

    /** The editor has read a text file for the holder: a limited link counts it as a view. */
    readText(h: LinkHolder, rel: string, ask: TakeAsk): Taken {
      return h.row.max_downloads === null ? {} : shares.take(h.row, ask, false, inHeldLink(h.row, rel));
    },

    /**
     * The items (the whole link when none are named), opened: one file as itself, anything else
     * as a zip (http/download.ts sends either).
     */
    async download(
      h: LinkHolder,
      rels: string[],
      name: string | undefined,
      ask: TakeAsk,
    ): Promise<{ download: Download; taken: Taken }> {
      const items: InsidePath[] = [];
      for (const rel of rels.length ? rels : ['']) {
        const r = await resolver.resolveInside(h.caller, inHeldLink(h.row, rel), { mustExist: true });
        if (!r.access.canDownload) throw noDownloads();
        items.push(r);
      }
      const one = items.length === 1 && !items[0]!.isDirectory ? items[0]! : null;
      const taken = shares.take(h.row, ask, true, one?.virtualPath);
      if (one) {
        const item = one;
        const file = await openFileIn(item.space.root, item.realPath);
        const name = linkFileName(item);
        // A photo's place reaches a link holder only when the owner allows it (metadata/location.ts).
        const keep = h.row.allow_location === 1;
        const patches = await linkPatches(name, file.fd, file.stat.size, keep).catch(async (err: unknown) => {
          await file.close();
          throw err;
        });
        return { download: { kind: 'file', file, name, patches }, taken };
      }
      const named = items.map((item) => ({
        item,
        name: item.relative ? path.posix.basename(item.relative) : item.space.name,
      }));
      const archive = name
        ? name.endsWith('.zip')
          ? name
          : `${name}.zip`
        : `${named.length === 1 ? named[0]!.name : h.row.path.split('/').pop()}.zip`;
      const sources = await openSources(
        named.map(({ item, name }) => ({
          root: item.space.root,
          real: item.realPath,
          name,
          isDirectory: item.isDirectory,
          leaveOut: resolver.withheldBelow(h.caller, item),
        })),
      );
      const scrub = h.row.allow_location === 1 ? undefined : locationPatches;
      return { download: { kind: 'zip', zip: zipAnswer(sources, archive, false, false, scrub) }, taken };
    },
  };
}

export type LinkReads = ReturnType<typeof createLinkReads>;
