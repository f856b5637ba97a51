// 7-Zip (7z-wasm) in its own thread: its calls are synchronous and a big archive would block
// the event loop for seconds. The archive is not copied into the WebAssembly memory: it is a
// read-only device node whose reads are fs.readSync on the descriptor the main thread opened
// (and checked). Extracted files are not written by 7-Zip either: files it creates under /out
// get stream operations that post their bytes to the main thread, which writes them through
// the same exclusive-create code as zip and tar. 7-Zip sees an in-memory tree of empty files.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type { FromSevenZip, SevenZipListed, SevenZipWorkerData, ViewPart } from './sevenzip-protocol.ts';
import { IN_FLIGHT_LIMIT } from './sevenzip-protocol.ts';

const data = workerData as SevenZipWorkerData;
const control = new Int32Array(data.control);
const post = (m: FromSevenZip, transfer?: ArrayBuffer[]) => parentPort!.postMessage(m, transfer ?? []);

type EmFS = any;

async function main(): Promise<void> {
  const factory = createRequire(import.meta.url)('7z-wasm') as (
    opts: object,
  ) => Promise<{ FS: EmFS; callMain(args: string[]): number }>;
  const out: string[] = [];
  const errors: string[] = [];
  const sz = await factory({
    print: (line: string) => out.push(line),
    printErr: (line: string) => errors.push(line),
    // The module compiled once by the main thread; nothing is looked up beside a script.
    instantiateWasm(
      imports: WebAssembly.Imports,
      done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void,
    ) {
      WebAssembly.instantiate(data.module, imports).then((instance) => done(instance, data.module));
      return {};
    },
  });
  const FS = sz.FS;
  const dev = FS.makedev(64, 0);
  FS.registerDevice(dev, {
    open() {},
    close() {},
    read(_stream: unknown, buffer: Uint8Array, offset: number, length: number, position: number) {
      return data.view
        ? readView(data.view, buffer, offset, length, position)
        : fs.readSync(data.fd, buffer, offset, length, position);
    },
    llseek(stream: { position: number }, offset: number, whence: number) {
      let p = offset;
      if (whence === 1) p += stream.position;
      else if (whence === 2) p += data.size;
      if (p < 0) throw new FS.ErrnoError(28);
      return p;
    },
  });
  FS.mkdir('/in');
  const safeName = data.name.replace(/[^A-Za-z0-9._-]/g, '_') || 'archive';
  const archive = `/in/${safeName}`;
  FS.mkdev(archive, 0o444 | 0o020000, dev);
  // 7-Zip checks it opened a regular file of the right size: the device node answers as one.
  const node = FS.lookupPath(archive).node;
  const getattr = node.node_ops.getattr;
  node.node_ops = { ...node.node_ops, getattr: (n: unknown) => ({ ...getattr(n), mode: 0o100444, size: data.size }) };

  // -p with nothing: a password prompt would read stdin; -spd: names are names, not wildcards;
  // -sccUTF-8: the listing in UTF-8; -bsp0: no progress lines mixed into the output.
  const common = ['-p\u0001', '-spd', '-sccUTF-8', '-scsUTF-8', '-bsp0', '-y'];
  // This build has no C++ exception catching: an exception 7-Zip would have turned into a
  // message (a wrong password for encrypted headers, among others) escapes as a bare number.
  const call = (args: string[]) => {
    try {
      return sz.callMain(args);
    } catch (err) {
      errors.push(
        typeof err === 'number' ? `7-Zip stopped (exception ${err})` : String((err as Error)?.message ?? err),
      );
      return 2;
    }
  };
  let code: number;
  if (data.job.type === 'list') {
    code = call(['l', '-slt', '-ba', ...common, archive]);
    if (code === 0) post({ type: 'entries', entries: parseSlt(out) });
  } else {
    FS.mkdir('/out');
    interceptFiles(FS);
    FS.writeFile('/names.txt', data.job.names.join('\n') + '\n');
    code = call(['x', ...common, '-aoa', '-o/out', archive, '@/names.txt']);
  }
  post({ type: 'end', code, errors: errors.concat(code !== 0 ? out.slice(-20) : []) });
}

const O_CREAT = 0o100;

/** Files 7-Zip creates under /out stream to the main thread instead of into memory. */
function interceptFiles(FS: EmFS): void {
  const open = FS.open;
  FS.open = function (path: string, flags: number | string, mode?: number) {
    const stream = open.call(FS, path, flags, mode);
    const numeric = typeof flags === 'number' ? flags : flags.startsWith('w') || flags.startsWith('a') ? O_CREAT : 0;
    const full: string = stream.path ?? String(path);
    if (!(numeric & O_CREAT) || !full.startsWith('/out/') || !FS.isFile(stream.node.mode)) return stream;
    const node = stream.node;
    // Preallocation or truncation must not grow an in-memory copy: sizes are not kept.
    const setattr = node.node_ops.setattr;
    node.node_ops = {
      ...node.node_ops,
      setattr: (n: unknown, attr: { size?: number }) => {
        const { size: _size, ...rest } = attr;
        setattr(n, rest);
      },
    };
    post({ type: 'open', path: full.slice('/out/'.length) });
    stream.stream_ops = {
      ...stream.stream_ops,
      write(_s: unknown, buffer: Uint8Array, offset: number, length: number) {
        if (Atomics.load(control, 1)) throw new FS.ErrnoError(29);
        const chunk = buffer.slice(offset, offset + length);
        Atomics.add(control, 0, length);
        post({ type: 'data', chunk }, [chunk.buffer as ArrayBuffer]);
        for (;;) {
          const inFlight = Atomics.load(control, 0);
          if (inFlight <= IN_FLIGHT_LIMIT || Atomics.load(control, 1)) break;
          Atomics.wait(control, 0, inFlight, 1000);
        }
        if (Atomics.load(control, 1)) throw new FS.ErrnoError(29);
        return length;
      },
      close() {
        post({ type: 'close' });
      },
      llseek(s: { position: number }, offset: number, whence: number) {
        return whence === 1 ? s.position + offset : offset;
      },
    };
    return stream;
  };
}

/** Reads `length` bytes at `position` of the parts laid end to end (ranges read from the descriptor). */
function readView(parts: ViewPart[], buffer: Uint8Array, offset: number, length: number, position: number): number {
  let done = 0;
  let start = 0;
  for (const part of parts) {
    const size = 'bytes' in part ? part.bytes.length : part.length;
    const from = position + done - start;
    if (done < length && from >= 0 && from < size) {
      const n = Math.min(size - from, length - done);
      if ('bytes' in part) buffer.set(part.bytes.subarray(from, from + n), offset + done);
      else {
        const got = fs.readSync(data.fd, buffer, offset + done, n, part.at + from);
        if (got !== n) return done + got;
      }
      done += n;
    }
    start += size;
  }
  return done;
}

/** `7z l -slt` blocks (`Key = Value` lines, a blank line between entries). */
function parseSlt(lines: string[]): SevenZipListed[] {
  const entries: SevenZipListed[] = [];
  let cur: Record<string, string> = {};
  const flush = () => {
    if (cur.Path !== undefined) {
      const attrs = cur.Attributes ?? '';
      const unix = /\b([-dlcbps])[-rwxsStT]{9}\b/.exec(attrs)?.[1];
      const folder = cur.Folder === '+' || attrs.startsWith('D') || unix === 'd';
      const link = unix === 'l' || !!cur['Symbolic Link'] || !!cur['Hard Link'];
      const device = unix === 'c' || unix === 'b' || unix === 'p' || unix === 's';
      const size = cur.Size === undefined || cur.Size === '' ? null : Number(cur.Size);
      entries.push({
        path: cur.Path,
        folder,
        link,
        device,
        size: Number.isFinite(size) ? size : null,
        modified: cur.Modified ? cur.Modified.slice(0, 19) : null,
        encrypted: cur.Encrypted === '+',
      });
    }
    cur = {};
  };
  for (const line of lines) {
    if (line === '') {
      flush();
      continue;
    }
    const i = line.indexOf(' = ');
    if (i > 0) cur[line.slice(0, i)] = line.slice(i + 3);
    else if (line.endsWith(' =')) cur[line.slice(0, -2)] = '';
  }
  flush();
  return entries;
}

main().catch((err) => post({ type: 'end', code: 2, errors: [String((err as Error)?.message ?? err)] }));
