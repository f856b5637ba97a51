// The uploaded logo: a small image kept in CONFIG_DIR/branding under a content-hash name,
// written to a temporary name first and renamed into place (a refused upload leaves nothing).
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import busboy from 'busboy';
import { AppError } from '../core/errors.ts';

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
  readonly dir: string;
  constructor(configDir: string) {
    this.dir = path.join(configDir, 'branding');
  }

  file(name: string): string | null {
    return LOGO_FILE.test(name) ? path.join(this.dir, name) : null;
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
    fs.mkdirSync(this.dir, { recursive: true });
    const name = `${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}.${kind}`;
    const temp = path.join(this.dir, `.upload-${randomBytes(6).toString('hex')}`);
    fs.writeFileSync(temp, bytes, { flag: 'wx' });
    // Same content → same name, so replacing an existing file changes nothing.
    fs.renameSync(temp, path.join(this.dir, name));
    return name;
  }

  /** Stores an uploaded logo and gives its public address (saved with PATCH /api/settings). */
  async upload(req: IncomingMessage): Promise<{ logoUrl: string }> {
    return { logoUrl: LOGO_PATH + (await this.receive(req)) };
  }

  /** Writes a stored logo as the answer (HEAD: the headers only). */
  send(name: string, method: string | undefined, res: ServerResponse): void {
    const file = this.file(name);
    if (!file) throw new AppError('NOT_FOUND', 'No such logo.');
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch {
      throw new AppError('NOT_FOUND', 'No such logo.');
    }
    res.writeHead(200, {
      'Content-Type': LOGO_TYPES[name.split('.').pop()!]!,
      'Content-Length': stat.size,
      // The name is a content hash: it never changes meaning.
      'Cache-Control': 'public, max-age=31536000, immutable',
    });
    if (method === 'HEAD') return void res.end();
    fs.createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res);
  }

  /** Removes stored logos other than those named. */
  prune(keep: readonly string[]): void {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return;
    }
    for (const n of names)
      if (LOGO_FILE.test(n) && !keep.includes(n)) fs.rmSync(path.join(this.dir, n), { force: true });
  }
}
