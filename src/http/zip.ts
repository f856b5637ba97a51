// The zip responder: an archive streamed as the answer, named for the browser to save. What goes
// in is the zip's own business (downloads/zip.ts builds it over opened, checked sources); here
// are its headers, HEAD, and a failure that cuts the answer instead of ending it as if whole.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { contentDisposition } from './file.ts';

/** A zip to send: its file name, the writer of its bytes, and what to close when it is not written. */
export interface ZipAnswer {
  name: string;
  /** Writes the zip onto `out` up to its end (not ending `out`); closes what it opened, whatever happens. */
  write(out: Writable): Promise<void>;
  /** Closes the sources without writing (HEAD). */
  close(): Promise<void>;
}

/**
 * Streams the zip. Any failure (a file cut short, an entry refused as outside, the client
 * leaving) fails this answer only and rejects for the log.
 */
export async function sendZip(req: IncomingMessage, res: ServerResponse, zip: ZipAnswer): Promise<void> {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/zip');
  res.setHeader('Content-Disposition', contentDisposition(zip.name));
  res.setHeader('Cache-Control', 'no-store');
  if (req.method === 'HEAD') {
    await zip.close();
    res.end();
    return;
  }
  try {
    await zip.write(res);
    res.end();
    await finished(res);
  } catch (err) {
    res.destroy(err as Error);
    throw err;
  }
}
