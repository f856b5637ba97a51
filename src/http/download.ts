// A download as data, and its responder: one file (http/file.ts: validators, Range) or a zip
// (http/zip.ts). A service opens what is sent before any answer starts and hands it back as a
// Download; the row's one line sends it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Patch } from '../core/patches.ts';
import { sendFile, type OpenFile } from './file.ts';
import { sendZip, type ZipAnswer } from './zip.ts';

/** `patches`: bytes sent in place of some of the file's, the same length (core/patches.ts). */
export type Download =
  { kind: 'file'; file: OpenFile; name: string; patches?: readonly Patch[] } | { kind: 'zip'; zip: ZipAnswer };

/** Sends what a download opened: the file itself as an attachment, or the zip. */
export function sendDownload(req: IncomingMessage, res: ServerResponse, d: Download): Promise<void> {
  return d.kind === 'file'
    ? sendFile(req, res, d.file, d.name, 'attachment', undefined, d.patches)
    : sendZip(req, res, d.zip);
}
