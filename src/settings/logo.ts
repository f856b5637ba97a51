// The uploaded logo: a small image kept in the database under a content-hash name (one row,
// written once the whole image is read and checked: a refused upload leaves nothing), so every
// instance of a cluster serves the same bytes with the same ETag. The previous releases kept it
// in CONFIG_DIR/branding: such a file is moved into the database once, at startup (`moveIn`).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import busboy from 'busboy';
import { AppError } from '../core/errors.ts';
import { isNotModified } from '../http/conditional.ts';
import type { Logger } from '../core/log.ts';
import type { LogoRowStore } from './logo-store.ts';

/** Where stored logos are served (GET /api/branding/logo/:file). */
export const LOGO_PATH = '/api/branding/logo/';
export const MAX_LOGO_BYTES = 2 * 1024 * 1024;
export const LOGO_FILE = /^[a-f0-9]{16}\.(png|jpg|gif|webp)$/;
export const LOGO_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

/** The image kind from its first bytes (the declared type is not trusted; SVG is refused: it can carry script). */
function sniff(head: Buffer): string | null {
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpg';
  if (head.subarray(0, 4).toString('latin1') === 'GIF8') return 'gif';
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP')
    return 'webp';
  return null;
}

export class LogoStore {
  private readonly rows: LogoRowStore;
  constructor(rows: LogoRowStore) {
    this.rows = rows;
  }

  /**
   * The previous releases' logos (CONFIG_DIR/branding/<name>) into the database, once: each file
   * is stored under its name and then removed, and the folder with it when nothing else is left.
   * A file that cannot be read stays where it is (told in the log) and is tried at the next start.
   */
  moveIn(configDir: string, log: Logger): void {
    const dir = path.join(configDir, 'branding');
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const file = path.join(dir, name);
      try {
        if (!LOGO_FILE.test(name)) {
          // A temporary of an upload the previous release did not finish.
          if (name.startsWith('.upload-')) fs.rmSync(file, { force: true });
          continue;
        }
        this.rows.put(name, fs.readFileSync(file), new Date().toISOString());
        fs.rmSync(file, { force: true });
        log.info('a logo moved from CONFIG_DIR/branding into the database', { name });
      } catch (err) {
        log.warn('a logo in CONFIG_DIR/branding could not be moved into the database', { name, err });
      }
    }
    try {
      fs.rmdirSync(dir);
    } catch {
      // Something else is kept there: left alone.
    }
  }

  /** Reads the multipart part `logo` (at most MAX_LOGO_BYTES) and stores it; returns the file name. */
  receive(req: IncomingMessage): Promise<string> {
    return new Promise((resolve, reject) => {
      let parser: busboy.Busboy;
      try {
        parser = busboy({
          headers: req.headers,
          limits: { files: 1, fileSize: MAX_LOGO_BYTES, fields: 10, parts: 20 },
        });
      } catch {
        reject(new AppError('INVALID_BODY', 'Send the logo as multipart/form-data in a part named "logo".'));
        return;
      }
      let seen = false;
      let failure: AppError | null = null;
      let stored: Promise<string> | null = null;
      parser.on('file', (field, stream) => {
        if (field !== 'logo' || seen) {
          failure ??= new AppError(
            'INVALID_BODY',
            `Unexpected file field "${field.slice(0, 50)}": send the logo in a part named "logo".`,
          );
          stream.resume();
          return;
        }
        seen = true;
        const chunks: Buffer[] = [];
        let size = 0;
        stream.on('data', (c: Buffer) => {
          size += c.length;
          chunks.push(c);
        });
        stream.on('limit', () => {
          failure ??= new AppError('TOO_LARGE', `The logo may be at most ${MAX_LOGO_BYTES / 1024 / 1024} MB.`, {
            status: 413,
          });
        });
        stored = new Promise((done, fail) =>
          stream.on('end', () => {
            if (failure) return done('');
            const bytes = Buffer.concat(chunks, size);
            const kind = sniff(bytes.subarray(0, 16));
            if (!kind) {
              failure = new AppError('UNSUPPORTED_TYPE', 'The logo must be a PNG, JPEG, GIF or WebP image.');
              return done('');
            }
            try {
              done(this.write(bytes, kind));
            } catch (err) {
              fail(err);
            }
          }),
        );
      });
      parser.on('error', () => reject(new AppError('INVALID_BODY', 'The multipart body is malformed.')));
      parser.on('close', () => {
        if (!seen && !failure)
          failure = new AppError('INVALID_BODY', 'Invalid body: logo: Required (a multipart part named "logo").');
        Promise.resolve(stored).then((name) => (failure ? reject(failure) : resolve(name!)), reject);
      });
      req.pipe(parser);
    });
  }

  private write(bytes: Buffer, kind: string): string {
    const name = `${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}.${kind}`;
    // Same content → same name: storing it again changes nothing.
    this.rows.put(name, bytes, new Date().toISOString());
    return name;
  }

  /** Stores an uploaded logo and gives its public address (saved with PATCH /api/settings). */
  async upload(req: IncomingMessage): Promise<{ logoUrl: string }> {
    return { logoUrl: LOGO_PATH + (await this.receive(req)) };
  }

  /**
   * Writes a stored logo as the answer (HEAD: the headers only). The name is a content hash, so
   * it is its own ETag: a browser that holds it is answered 304 by any instance.
   */
  send(name: string, req: IncomingMessage, res: ServerResponse): void {
    const bytes = LOGO_FILE.test(name) ? this.rows.bytes(name) : null;
    if (!bytes) throw new AppError('NOT_FOUND', 'No such logo.');
    const etag = `"${name.split('.')[0]}"`;
    const headers = {
      ETag: etag,
      // The name never changes meaning.
      'Cache-Control': 'public, max-age=31536000, immutable',
    };
    if (isNotModified(req, { etag })) {
      res.writeHead(304, headers);
      return void res.end();
    }
    res.writeHead(200, {
      ...headers,
      'Content-Type': LOGO_TYPES[name.split('.').pop()!]!,
      'Content-Length': bytes.length,
    });
    res.end(req.method === 'HEAD' ? undefined : bytes);
  }

  /** Removes stored logos other than those named. */
  prune(keep: readonly string[]): void {
    this.rows.keepOnly(keep.filter((n) => LOGO_FILE.test(n)));
  }
}
