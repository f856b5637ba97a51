// Single-file downloads through the executable, whole and by Range, each against ceilings
// measured in the same run with the same client (curl in its own process), rounds interleaved,
// medians:
//   - a bare Node server streaming the file with fs.createReadStream, 1 MiB reads (issue 19's
//     ceiling; goal ≥ 0.95);
//   - a bare Node server with Burrow's own technique (reused 1 MiB buffers, one read ahead):
//     the best Node figure we know, so Burrow's ratio to it is the overhead of being Burrow;
//   - sendfile(2) from a Python server: the zero-copy path (copyparty's), which Node cannot take
//     for a socket. Shown as the distance still to go, not as a goal.
// Run: npm run bench -- download [--quick]     (the source: BURROW_TEST_SERVER=source)
//
// Where the time went (profiled on the shared 2-core machine, curl client, 1 GiB from the page
// cache): before, fs.createReadStream → a counting Transform → pipeline: a fresh 1 MiB buffer
// per read (external memory, answered by V8 with frequent mark-compacts) and one more stream hop
// per chunk; no compression or hashing on the path. Now: pooled reads (src/http/range.ts) straight
// to the socket with backpressure, buffers handed back in the write callback, the short-file
// check inside the reader (src/http/range.ts sendRange). 2 MiB and 4 MiB reads measured no better
// than 1 MiB (within noise); cork/uncork does nothing for one 1 MiB write per chunk (Node already
// writes it in one call). Memory stays flat: at most 4 buffers of 1 MiB per download.
//
// Measured through the executable (shared 2-core machine, load 8-11, medians of 7, MB/s):
//                   Burrow   createReadStream   pooled bare Node   sendfile (Python)
//   1 GiB            913          792 (1.15×)        991 (0.92×)       727
//   Range 512 MiB    826          829 (1.00×)        949 (0.87×)       713
// Before, the old path (createReadStream → Transform → pipeline) rebuilt in a stand-alone server
// beside the two Node ceilings, 1 GiB, curl, 6 interleaved rounds: 409-713 MB/s, against
// createReadStream 326-687 and pooled 466-1436 (issue 19's session: 0.54× the ceiling).
// sendfile: on this machine the client is the limit before the server is — curl writing to
// /dev/null reads a local file at only 1.3-1.4 GB/s here, and the Python sendfile server measured
// below the Node ones. Copyparty's 2× (measured on a quiet machine) is out of Node's reach
// anyway: Node has no sendfile for sockets, so every byte is read into a buffer and written.
// Range against the whole file (issue 19 had Range at 0.70x of the pooled ceiling, the whole
// file at 1.27x in the same table): the same code path (sendRange: a Range is its start and
// end, 1 MiB reads from the start offset), and the same cost: the server CPU per GiB sent,
// measured in the same rounds, against the pooled ceiling's (executable, 7 rounds, three runs):
// whole 340 / 360, 360 / 350, 390 / 310 ms per GiB; Range 340 / 300, 330 / 350, 510 / 500.
// The MB/s of one run swing by ±30 % with the neighbours' load, in either direction and for
// either case (pooled ratio, whole / Range: 0.85x / 0.88x, then 0.77x / 1.12x, then 0.84x /
// 0.96x). No Range-only cost shows in any of it; the CPU rows move less, read them first.
import './support/executable.ts';
import fs from 'node:fs';
import path from 'node:path';
import { removeDirs, startServer } from '../support/server.ts';
import { childPid, cpuMs, drain, interleaved, MB, median, quiet } from './support/measure.ts';
import { startPlainServer, startSendfileServer } from './support/plain-server.ts';
import { costRow, rateRow, runAlone, type BenchOptions, type BenchRow } from './support/table.ts';

export async function rows(opts: BenchOptions = {}): Promise<BenchRow[]> {
  const size = (opts.quick ? 256 : 1024) * MB;
  const rounds = opts.quick ? 3 : 7;
  const s = await startServer({ env: { AUTH_MODE: 'disabled', LOG_LEVEL: 'error' } });
  const file = path.join(s.dirs.volumes, 'Files', 'big.bin');
  const fd = fs.openSync(file, 'w');
  const block = Buffer.alloc(16 * MB);
  for (let i = 0; i < block.length; i += 4) block.writeUInt32LE(Math.imul(i, 2654435761) >>> 0, i);
  for (let i = 0; i < size / block.length; i++) fs.writeSync(fd, block);
  fs.closeSync(fd);
  const plain = await startPlainServer(path.join(s.dirs.volumes, 'Files'));
  const sendfile = await startSendfileServer(file);
  // From source, Burrow runs in this process (its CPU then includes starting each curl, ~1 %).
  const burrowPid = s.mode === 'executable' ? childPid(/\/burrow-\w+-\w+( |$)/) : process.pid;
  const plainPid = childPid(/plain-server/);
  await quiet(burrowPid);
  try {
    const out: BenchRow[] = [];
    // Whole file, then the middle half by Range (a seek, then the same streaming).
    const cases = [
      { label: `download ${size / MB >= 1024 ? `${size / MB / 1024} GiB` : `${size / MB} MiB`}`, range: undefined },
      { label: `download, Range of ${size / MB / 2} MiB`, range: `bytes=${size / 4}-${(size * 3) / 4 - 1}` },
    ];
    for (const c of cases) {
      const want = c.range ? size / 2 : size;
      const cpu: Record<'burrow' | 'pooled', number[]> = { burrow: [], pooled: [] };
      const rate = async (url: string, who?: { pid: number; into: number[] }) => {
        const before = who ? cpuMs(who.pid) : 0;
        const r = await drain(url, { range: c.range });
        if (who) who.into.push(((cpuMs(who.pid) - before) * MB * 1024) / want);
        if (r.bytes !== want || r.status !== (c.range ? 206 : 200))
          throw new Error(`${url}: ${r.status}, ${r.bytes} of ${want} bytes`);
        return want / MB / r.seconds;
      };
      const m = await interleaved(rounds, {
        burrow: () => rate(`${s.url}/api/download/Files/big.bin`, { pid: burrowPid, into: cpu.burrow }),
        stream: () => rate(`${plain.url}/stream/big.bin`),
        pooled: () => rate(`${plain.url}/pooled/big.bin`, { pid: plainPid, into: cpu.pooled }),
        sendfile: () => rate(sendfile.url),
      });
      out.push(
        rateRow(c.label, m.burrow, m.stream, 'MB/s', '≥ 0.95', 'bare Node, createReadStream 1 MiB reads'),
        rateRow(
          c.label,
          m.burrow,
          m.pooled,
          'MB/s',
          '≥ 0.9',
          'bare Node, reused 1 MiB buffers (Burrow without Burrow)',
        ),
        rateRow(c.label, m.burrow, m.sendfile, 'MB/s', 'to chase', 'sendfile(2) (Python; what copyparty does)'),
        // The server's own cost, which the neighbours' load on the shared machine moves less
        // (the MB/s above swing ±30 % between runs; this ~10-20 %).
        costRow(
          `${c.label}, server CPU per GiB`,
          Math.round(median(cpu.burrow)),
          Math.round(median(cpu.pooled)),
          'ms',
          '≥ 0.9',
          'bare Node, reused 1 MiB buffers: CPU (user + system) of the server process per GiB sent, same rounds',
        ),
      );
    }
    return out;
  } finally {
    plain.close();
    sendfile.close();
    await s.close();
    removeDirs(s.dirs);
  }
}

await runAlone(import.meta.main, rows);
