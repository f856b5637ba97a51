// Uploads into a link. A file request counts what arrives against its limits (files, bytes):
// the room is claimed before the bytes come (multipart: its Content-Length; TUS: its
// Upload-Length), settled to what actually arrived, and given back when the upload fails —
// only a claim that was taken is ever given back, so a refused or malformed request cannot
// lower the counts. Every arrival is a row of the owner's activity log.
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { AppError } from '../core/errors.ts';
import type { UploadsCapability } from '../uploads/capability.ts';
import type { UploadedItem, UploadQuery } from '../uploads/wire.ts';
import type { LinkHolder, LinkHolding } from './holder.ts';
import type { ShareRow } from './store.ts';

export function createLinkIntake(deps: { shares: LinkHolding; uploads: Pick<UploadsCapability, 'multipart'> }) {
  const { shares, uploads } = deps;

  /** Claims room for one file of `bytes`; 413 when the request is full. */
  function claim(row: ShareRow, bytes: number): void {
    if (!shares.reserve(row, bytes)) throw new AppError('LINK_FILE_REQUEST_FULL');
  }

  return {
    /** POST /api/share/{token}/upload: multipart like POST /api/upload, into the link. */
    async multipart(
      h: LinkHolder,
      request: { headers: IncomingHttpHeaders; body: Readable; query?: UploadQuery },
      ip: string,
    ): Promise<UploadedItem[]> {
      const { row } = h;
      if (!row.file_request) return uploads.multipart.receive(h.caller, request);
      // A chunked body would claim nothing and could pass a byte limit.
      if (row.max_bytes !== null && request.headers['content-length'] === undefined)
        throw new AppError('LINK_FILE_REQUEST_LENGTH');
      const reserved = Number(request.headers['content-length'] ?? 0) || 0;
      claim(row, reserved);
      let items: UploadedItem[];
      try {
        items = await uploads.multipart.receive(h.caller, request);
      } catch (err) {
        shares.release(row, reserved);
        throw err;
      }
      // The claim counted one file of Content-Length bytes; keep what arrived (a skipped file
      // stored nothing: its item is the file that kept the name).
      const stored = items.filter((i) => i.outcome !== 'skipped');
      const size = stored.reduce((a, i) => a + i.size, 0);
      shares.settle(row, stored.length - 1, size - reserved);
      for (const i of stored) shares.received(row, { name: i.name, size: i.size, path: i.path }, ip);
      return items;
    },

    /**
     * POST /api/share/{token}/tus: a resumable upload into the link (`create` makes it). A file
     * request claims its Upload-Length first and gives it back when the creation fails.
     */
    async tusCreate<T>(h: LinkHolder, headers: IncomingHttpHeaders, create: () => Promise<T>): Promise<T> {
      const { row } = h;
      const length = Number(headers['upload-length']);
      // A malformed Upload-Length (negative, missing) claims nothing: the TUS layer refuses it.
      const claimed = row.file_request && Number.isSafeInteger(length) && length >= 0;
      if (claimed) claim(row, length);
      try {
        return await create();
      } catch (err) {
        if (claimed) shares.release(row, length);
        throw err;
      }
    },

    /**
     * A file a TUS answer placed into the link: a file request logs it for the owner; one skipped
     * at placing (its name taken, at creation or when the last byte came) stored nothing, so its
     * claim is given back.
     */
    tusPlaced(h: LinkHolder, placed: { item: UploadedItem; length: number }, ip: string): void {
      const { row } = h;
      if (!row.file_request) return;
      if (placed.item.outcome === 'skipped') shares.release(row, placed.length);
      else shares.received(row, { name: placed.item.name, size: placed.length, path: placed.item.path }, ip);
    },
  };
}

export type LinkIntake = ReturnType<typeof createLinkIntake>;
