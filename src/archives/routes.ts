// Archive rows (spec §4.4): listing, one entry, extraction as an event stream, and the native
// client's one-shot zip routes. Every handler is one call into ArchiveOperations; the two
// helpers below only write the answer (an entry's bytes, the NDJSON events).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { route } from '../http/route.ts';
import { openEventStream, type EventStream } from '../http/ndjson.ts';
import { pipeResponse } from '../http/send.ts';
import type { Logger } from '../core/log.ts';
import { contentDisposition, rangeFor, writeRangeHead } from '../http/file.ts';
import type { ArchiveOperations, PreparedExtraction } from './operations.ts';
import {
  archiveListing,
  createdItem,
  entryQuery,
  extractBody,
  extractConflicts,
  extractConflictsBody,
  extractEvent,
  listQuery,
  zipCompressBody,
  zipExtractBody,
  type ExtractEvents,
} from './wire.ts';

const TAGS = ['Archives'];
const REFUSALS = {
  400: 'ARCHIVE_BAD_POSITION: a name pointing outside the archive; or a bad path',
  403: 'Not allowed (read tokens may list and read, not extract)',
  404: 'No such archive, or ARCHIVE_ENTRY_NOT_FOUND',
  409: 'ARCHIVE_ENCRYPTED: the entry (or a selected one) is behind a password',
  413: 'ARCHIVE_TOO_MANY_ENTRIES (over ARCHIVE_MAX_ENTRIES) or ARCHIVE_TOO_LARGE_TO_BROWSE (a compound archive over MAX_BROWSABLE_ARCHIVE_SIZE)',
  415: 'ARCHIVE_UNSUPPORTED: not an archive Burrow can open',
  422: 'ARCHIVE_UNREADABLE: damaged, or sizes that lie',
} as const;

export function archiveRoutes(deps: { operations: ArchiveOperations }) {
  const { operations } = deps;
  return [
    route({
      method: 'GET',
      path: '/api/archive/list',
      access: 'account',
      tags: TAGS,
      summary:
        'One folder level inside an archive (zip, tar and its compressed kinds, .gz/.bz2/.xz, 7z, rar, iso, cab…)',
      description:
        'Query `path` (the archive), optional `inside` (a folder in it; the top when absent), optional `offset`/`limit` to page a large level. Folders implied only by file paths are listed. `total` counts every entry of the archive, `outside` those left out because their names point outside it. Listings are cached per archive identity (path, size, modification time).',
      query: listQuery,
      responses: { 200: { description: 'Spec §2 Archive listing', schema: archiveListing }, ...REFUSALS },
      handler: ({ caller, query }) => operations.list(caller, query),
    }),
    route({
      method: 'GET',
      path: '/api/archive/entry',
      access: 'account',
      tags: TAGS,
      summary: 'One file out of an archive, always as an attachment (X-Content-Type-Options: nosniff)',
      description:
        "Query `path` (the archive) and `entry` (the exact name inside it, looked up in the listing first). Streamed; a single `Range` is answered 206 when the entry's size is known (seeking in stored zip entries, skipping in compressed streams).",
      query: entryQuery,
      responses: {
        200: { description: "The entry's bytes", contentType: 'application/octet-stream' },
        206: { description: 'Part of the entry (Content-Range)', contentType: 'application/octet-stream' },
        416: 'Range not satisfiable',
        ...REFUSALS,
      },
      handler: async ({ caller, query, req, res, log }) =>
        sendEntry(req, res, log, await operations.entry(caller, query)),
    }),
    route({
      method: 'POST',
      path: '/api/archive/extract',
      access: 'account',
      tags: TAGS,
      summary:
        'Extract entries (a folder stands for everything under it; none: all) with NDJSON events start, progress, done, error',
      description:
        "Body `{path, entries, destination?, conflict?, conflictFor?}`. The destination (the archive's folder when absent) is authorised like the archive's folder, and extraction needs the right to create files and folders in both: refusals come as a plain error answer before anything is written. A selected item whose name is taken is answered by `conflict` (for all) or `conflictFor` (per item, over `conflict`): `rename` (the default) keeps both as `name (1)`, `skip` writes nothing of it, `replace` takes the name and keeps what held it (a file as a version, a folder in the trash; folders are never merged; needs the right to delete there, refused before anything is written). `POST /api/archive/conflicts` lists the taken names beforehand. Names pointing outside, absolute and drive names, links and devices are never written; a failed or cancelled run removes what it created. `done` carries per selected item the name it landed under and its `outcome` (`placed`, `renamed`, `replaced` with `versionId` or `trashId`, `skipped`), and the entries skipped as links or devices.",
      body: extractBody,
      responses: {
        200: { description: 'One JSON event per line', contentType: 'application/x-ndjson', schema: extractEvent },
        507: 'NO_SPACE: not enough free space for what the archive declares',
        ...REFUSALS,
      },
      handler: async ({ caller, body, res }) => streamExtraction(res, await operations.prepareExtract(caller, body)),
    }),
    route({
      method: 'POST',
      path: '/api/archive/conflicts',
      access: 'account',
      scope: 'read',
      tags: TAGS,
      summary: 'The names an extraction would find taken in its destination, before any work',
      description:
        "Body `{path, entries, destination?}` as for `POST /api/archive/extract`. Answers each selected item (a folder stands for everything under it; none: the archive's top level) whose name is taken in the destination: `entry` (the key for `conflictFor`), what holds the name (`existing`), what would come (`incoming`), whether they are of the same kind, and whether this caller may replace it. Nothing is changed.",
      body: extractConflictsBody,
      responses: { 200: { description: 'The taken names', schema: extractConflicts }, ...REFUSALS },
      handler: ({ caller, body }) => operations.extractConflicts(caller, body),
    }),
    route({
      method: 'POST',
      path: '/api/files/zip/extract',
      access: 'account',
      tags: TAGS,
      status: 201,
      summary: 'Extract a whole archive into a new folder beside it, named after the archive (`name (1)` when taken)',
      description:
        "The native client's one-shot form: one JSON answer, not a stream. Any archive kind Burrow opens, not only zip.",
      body: zipExtractBody,
      responses: { 201: { description: 'The new folder', schema: createdItem }, 507: 'NO_SPACE', ...REFUSALS },
      handler: ({ caller, body }) => operations.extractToNewFolder(caller, body.path),
    }),
    route({
      method: 'POST',
      path: '/api/files/zip/compress',
      access: 'account',
      tags: TAGS,
      status: 201,
      summary:
        'A selection into a new zip (beside the first item unless `destination` names a folder; `name (1)` when taken)',
      description:
        "Body `{items: [{path, name}], destination?, name?}` (`path` is each item's folder). Streamed to a hidden temporary and placed when complete; already-compressed kinds are stored, the rest deflated.",
      body: zipCompressBody,
      responses: {
        201: { description: 'The new archive', schema: createdItem },
        400: 'Bad item or name',
        403: 'Not allowed to read an item or to write in the destination',
        404: 'An item does not exist',
      },
      handler: ({ caller, body }) => operations.compress(caller, body),
    }),
  ];
}

/** The entry as an attachment, never a page on our origin; 206 for one satisfiable range. */
async function sendEntry(
  req: IncomingMessage,
  res: ServerResponse,
  log: Logger,
  entry: Awaited<ReturnType<ArchiveOperations['entry']>>,
): Promise<void> {
  const { size } = entry.info;
  const range = size === null ? null : rangeFor(req, size);
  res.setHeader('Content-Type', 'application/octet-stream');
  res.setHeader('Content-Disposition', contentDisposition(entry.info.name, 'attachment'));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  res.setHeader('Cache-Control', 'private, no-cache');
  if (size !== null) res.setHeader('Accept-Ranges', 'bytes');
  if (range?.status === 416) return void writeRangeHead(res, range, size!);
  const opened = await entry.open(range?.status === 206 ? range : undefined);
  if (range) writeRangeHead(res, range, size!);
  else res.statusCode = 200;
  await new Promise<void>((resolve) => pipeResponse(opened.stream, res, log, () => resolve()));
}

/**
 * Events as they happen. The stream opens at the first event: a refusal found before it (the
 * selection, a password, free space) is still a plain error answer with its status.
 */
async function streamExtraction(res: ServerResponse, job: PreparedExtraction): Promise<void> {
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  let stream: EventStream<ExtractEvents> | undefined;
  const events = () => (stream ??= openEventStream<ExtractEvents>(res));
  try {
    const result = await job.run((e) => {
      if (e.type === 'start') void events().send('start', { archive: e.archive, entries: e.entries, bytes: e.bytes });
      else if (e.type === 'progress')
        void events().send('progress', {
          entries: e.entries,
          bytes: e.bytes,
          totalEntries: e.totalEntries,
          totalBytes: e.totalBytes,
        });
    }, gone.signal);
    await events().done({ entries: result.files, bytes: result.bytes, landed: result.landed, skipped: result.skipped });
  } catch (err) {
    if (!stream) throw err;
    await stream.fail(err);
  } finally {
    await job.close();
  }
}
