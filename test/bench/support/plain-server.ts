// The bare Node HTTP servers the benches measure Burrow against, each in its own process (as
// Burrow is), started with `startPlainServer(root)`. No auth, no checks, no database: what
// sending the same bytes costs in Node and nothing else. GET paths:
//   /stream/<file>   fs.createReadStream with 1 MiB reads piped to the response (Range honoured):
//                    the textbook Node server, and issue 19's download ceiling;
//   /pooled/<file>   1 MiB reads into reused buffers, one read ahead (Range honoured): the same
//                    technique Burrow uses, without Burrow — the highest Node figure we know;
//   /stored/<dir>    every file of <dir>, in name order, back to back, pooled reads: the bytes a
//                    stored zip carries, without the zip (no CRC, no headers) — less than a zip must
//                    do, so no ceiling (the zip bench prints it beside /zipwork, its former ceiling);
//   /deflate/<dir>   the same files each through zlib deflate level 1 (raw), one after another;
//   /zipwork/<dir>   the work a zip of <dir> cannot avoid, told by name what to do (no sampling):
//                    .log and .txt files read into reused buffers and deflated at level 1 on the
//                    thread pool through gzip streams kept from file to file (as Burrow keeps its
//                    engines), `?threads=N` (default 2) at a time, up to 8 files ahead of the one sending,
//                    in order; every other file sent as is with pooled reads. With the CRC-32
//                    every zip entry must carry (stored: zlib.crc32 over the bytes sent; text:
//                    zlib's gzip frame computes it on the pool thread, as Burrow's does); no headers.
//                    `?store`: every file sent as is with its CRC (a stored zip's work, Burrow's
//                    default since issue 33).
//   /list/<dir>      a listing: readdir, one stat per entry on the thread pool, names and facts as
//                    JSON (the contention bench's).
// PUT paths (the upload bench, the contention bench):
//   /discard         the body received and dropped, each chunk's memory freed as it arrives: what
//                    receiving the bytes over HTTP costs Node, no disk — with the disk write alone,
//                    the upload ceiling (an upload must do both);
//   /write/<name>?at=<offset>[&last]   the body written at <offset> into <name> with Burrow's
//                    body writer (kept open between requests, fdatasync and removed after the
//                    `last`), as Burrow's TUS does and nothing else: the floor of chunking; one file open per name.
// Run as a child: node test/bench/support/plain-server.ts <root> (prints the port).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { writeBody } from '../../../src/uploads/body-writer.ts';

const MB = 1024 * 1024;

export interface PlainServer {
  url: string;
  close(): void;
}

/** Starts the plain server over `root` in a child process. */
export async function startPlainServer(root: string): Promise<PlainServer> {
  return startChild(process.execPath, [new URL(import.meta.url).pathname, root]);
}

/**
 * The sendfile(2) ceiling: a Python server (http.server) that answers with socket.sendfile, the
 * zero-copy path copyparty takes. Node has no sendfile for sockets; this is what the kernel gives.
 */
export async function startSendfileServer(file: string): Promise<PlainServer> {
  const script = `
import os, sys
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
path = sys.argv[1]
class H(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def log_message(self, *a): pass
    def do_GET(self):
        size = os.path.getsize(path); start, end = 0, size - 1
        r = self.headers.get('Range')
        if r:
            a, b = r.split('=')[1].split('-'); start = int(a); end = int(b) if b else size - 1
        self.send_response(206 if r else 200)
        self.send_header('Content-Length', str(end - start + 1)); self.end_headers(); self.wfile.flush()
        with open(path, 'rb') as f: self.connection.sendfile(f, start, end - start + 1)
s = ThreadingHTTPServer(('127.0.0.1', 0), H); print(s.server_address[1], flush=True); s.serve_forever()
`;
  return startChild('python3', ['-c', script, file]);
}

async function startChild(cmd: string, args: string[]): Promise<PlainServer> {
  const child: ChildProcess = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${cmd} exited (${code}) before listening`)));
    readline.createInterface({ input: child.stdout! }).once('line', resolve);
  });
  return { url: `http://127.0.0.1:${port.trim()}`, close: () => void child.kill() };
}

function parseRange(header: string | undefined, size: number): { start: number; end: number } | null {
  const m = header ? /^bytes=(\d+)-(\d*)$/.exec(header) : null;
  return m ? { start: Number(m[1]), end: m[2] ? Math.min(Number(m[2]), size - 1) : size - 1 } : null;
}

const free: Buffer[] = [];
const take = () => free.pop() ?? Buffer.allocUnsafeSlow(MB);
const giveBack = (b: Buffer) => void (free.length < 8 && free.push(b));

/** Writes bytes [start, end] of `file` with reused buffers, one read ahead of the socket. */
async function pooled(
  res: http.ServerResponse,
  file: string,
  start: number,
  end: number,
  onChunk?: (bytes: Buffer) => void,
): Promise<void> {
  const fd = fs.openSync(file, 'r');
  const read = (pos: number) =>
    new Promise<[Buffer, number]>((resolve, reject) => {
      const buf = take();
      fs.read(fd, buf, 0, Math.min(MB, end + 1 - pos), pos, (err, n) => (err ? reject(err) : resolve([buf, n])));
    });
  try {
    let pos = start;
    let next = pos <= end ? read(pos) : null;
    while (next) {
      const [buf, n] = await next;
      if (n === 0) throw new Error('short file');
      pos += n;
      next = pos <= end ? read(pos) : null;
      const bytes = n === buf.length ? buf : buf.subarray(0, n);
      onChunk?.(bytes);
      if (!res.write(bytes, () => giveBack(buf))) await new Promise((r) => res.once('drain', r));
    }
  } finally {
    fs.closeSync(fd);
  }
}

// zlib's output pieces as large as Burrow's (the default 16 KiB made a slower ceiling).
const DEFLATE_CHUNK = 128 * 1024;

const textName = (name: string) => /\.(log|txt)$/.test(name);

/** Gzip streams kept from file to file (reset between them), as Burrow keeps its engines. */
const gzipEngines: zlib.Gzip[] = [];

/** One file's gzip member on the thread pool, through a kept engine: zlib's output pieces. */
function gzipPieces(input: Buffer): Promise<Buffer[]> {
  const z = gzipEngines.pop() ?? zlib.createGzip({ level: 1, chunkSize: DEFLATE_CHUNK });
  const pieces: Buffer[] = [];
  const onData = (piece: Buffer) => pieces.push(piece);
  z.on('data', onData);
  return new Promise<Buffer[]>((ok, fail) => {
    z.once('error', fail);
    z.write(input);
    z.flush(zlib.constants.Z_FINISH, () => {
      z.off('data', onData);
      z.off('error', fail);
      (z as zlib.Gzip & zlib.ZlibReset).reset();
      gzipEngines.push(z);
      ok(pieces);
    });
  });
}

/**
 * Stored files pooled; text read up to 8 files ahead (into reused buffers) and deflated
 * `threads` at a time through kept gzip engines, a thread taking the next file the moment it is
 * free (as Burrow's look-ahead does), written in order. Burrow does all of that too: a fresh
 * buffer and a zlib stream per file made a ceiling Burrow could beat once it stopped doing so.
 */
async function zipWork(
  res: http.ServerResponse,
  dir: string,
  names: string[],
  threads: number,
  store: boolean,
): Promise<void> {
  const deflates = (name: string) => !store && textName(name);
  let running = 0;
  const waiting: Array<() => void> = [];
  const deflated = async (file: string): Promise<Buffer[]> => {
    const size = fs.statSync(file).size;
    const buf = size <= MB ? take() : Buffer.allocUnsafeSlow(size);
    const fd = await fs.promises.open(file, 'r');
    const { bytesRead } = await fd.read(buf, 0, size, 0);
    void fd.close();
    if (running >= threads) await new Promise<void>((r) => waiting.push(r));
    else running++;
    try {
      return await gzipPieces(buf.subarray(0, bytesRead));
    } finally {
      if (buf.length === MB) giveBack(buf);
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
  const started = new Map<number, Promise<Buffer[]>>();
  let next = 0;
  res.writeHead(200);
  for (let i = 0; i < names.length; i++) {
    for (; next < Math.min(names.length, i + 8); next++) {
      if (!deflates(names[next]!)) continue;
      const p = deflated(path.join(dir, names[next]!));
      p.catch(() => {});
      started.set(next, p);
    }
    const file = path.join(dir, names[i]!);
    if (deflates(names[i]!)) {
      const pieces = await started.get(i)!;
      started.delete(i);
      for (const piece of pieces) if (!res.write(piece)) await new Promise((r) => res.once('drain', r));
    } else {
      let crc = 0;
      await pooled(res, file, 0, fs.statSync(file).size - 1, (bytes) => (crc = zlib.crc32(bytes, crc)));
    }
  }
  res.end();
}

/** The open files of /write, by path: several uploads at a time (the contention bench's). */
const writing = new Map<string, number>();
const fdatasync = promisify(fs.fdatasync);

async function receive(req: http.IncomingMessage, res: http.ServerResponse, mode: string, target: string) {
  const url = new URL(req.url!, 'http://x');
  if (mode === 'discard') {
    req.on('data', (chunk: Buffer) => (chunk.buffer as ArrayBuffer).transfer(0));
    await new Promise((resolve) => req.once('end', resolve));
  } else {
    const at = Number(url.searchParams.get('at') ?? 0);
    if (at === 0) writing.set(target, fs.openSync(target, 'w'));
    const fd = writing.get(target)!;
    await writeBody(req, fd, at, { freeWritten: true }).done;
    if (url.searchParams.has('last')) {
      await fdatasync(fd);
      fs.closeSync(fd);
      fs.rmSync(target);
      writing.delete(target);
    }
  }
  res.statusCode = 201;
  res.end();
}

function serve(root: string): void {
  const server = http.createServer(async (req, res) => {
    const [, mode, ...rest] = decodeURIComponent(new URL(req.url!, 'http://x').pathname).split('/');
    const target = path.join(root, ...rest);
    try {
      if (req.method === 'PUT') return await receive(req, res, mode!, target);
      if (mode === 'stream' || mode === 'pooled') {
        const size = fs.statSync(target).size;
        const range = parseRange(req.headers.range, size);
        const { start, end } = range ?? { start: 0, end: size - 1 };
        res.writeHead(range ? 206 : 200, { 'Content-Length': end - start + 1 });
        if (mode === 'stream') await pipeline(fs.createReadStream(target, { highWaterMark: MB, start, end }), res);
        else {
          await pooled(res, target, start, end);
          res.end();
        }
        return;
      }
      if (mode === 'list') {
        // A listing: readdir and one stat per entry on the thread pool, the names and facts as JSON.
        const names = await fsp.readdir(target);
        const stats = await Promise.all(names.map((n) => fsp.stat(path.join(target, n))));
        const items = names.map((name, i) => ({
          name,
          size: stats[i]!.size,
          modified: stats[i]!.mtime.toISOString(),
          dir: stats[i]!.isDirectory(),
        }));
        const body = JSON.stringify({ items });
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
        return;
      }
      const names = fs.readdirSync(target).sort();
      if (mode === 'zipwork') {
        const threads = Number(new URL(req.url!, 'http://x').searchParams.get('threads') ?? 2);
        await zipWork(res, target, names, threads, new URL(req.url!, 'http://x').searchParams.has('store'));
        return;
      }
      res.setMaxListeners(0);
      res.writeHead(200);
      for (const name of names) {
        const file = path.join(target, name);
        if (mode === 'stored') await pooled(res, file, 0, fs.statSync(file).size - 1);
        else
          await pipeline(
            fs.createReadStream(file, { highWaterMark: MB }),
            zlib.createDeflateRaw({ level: 1, chunkSize: DEFLATE_CHUNK }),
            res,
            {
              end: false,
            },
          );
      }
      res.end();
    } catch (err) {
      res.destroy(err as Error);
    }
  });
  server.listen(0, '127.0.0.1', () => console.log((server.address() as AddressInfo).port));
}

if (import.meta.main) serve(process.argv[2]!);
