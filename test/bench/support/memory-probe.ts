// Where a process's resident memory is, from /proc/<pid>/smaps (Linux): the program's file
// pages, glibc's main arena ([heap]), glibc's other arenas (one per thread that allocates, up to
// 8 per core unless GLIBC_TUNABLES says otherwise: mappings starting on a 64 MiB boundary, the
// rest of each 64 MiB reserved), WebAssembly memories (the accessible start of V8's reservation
// of ≥ 1 GiB whose remainder is inaccessible) and the rest of the anonymous memory (V8 heaps of
// every isolate, thread stacks, buffers mapped on their own).
import fs from 'node:fs';

export interface MemoryParts {
  rssMb: number;
  fileMb: number;
  /** Of fileMb: the program's own code pages, and the SEA blob's (0 for a bare `node`). */
  codeMb: number;
  blobMb: number;
  /** The SEA blob's size in the program's file (0 when it has none), resident or not. */
  blobSizeMb: number;
  heapMb: number;
  arenasMb: number;
  wasmMb: number;
  anonMb: number;
  threads: number;
}

interface Mapping {
  start: bigint;
  end: bigint;
  perms: string;
  offset: bigint;
  name: string;
  rssKb: number;
}

const ARENA_ALIGN = 64n * 1024n * 1024n;
const GIB = 1024n * 1024n * 1024n;

function mappings(pid: number): Mapping[] {
  const out: Mapping[] = [];
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S+) ([0-9a-f]+) \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      out.push({
        start: BigInt('0x' + header[1]),
        end: BigInt('0x' + header[2]),
        perms: header[3]!,
        offset: BigInt('0x' + header[4]),
        name: header[5]!,
        rssKb: 0,
      });
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && out.length) out[out.length - 1]!.rssKb = Number(rss[1]);
  }
  return out;
}

const PT_LOAD = 1;
const PT_NOTE = 4;
const SEA_NOTE_MIN = 1024n * 1024n;

/** The SEA blob's note segment in the program's file (offset and size), or null (not ELF64, no blob). */
function seaNote(exe: string): { offset: bigint; size: bigint; vaddr: bigint; firstLoad: bigint } | null {
  let fd: number | undefined;
  try {
    fd = fs.openSync(exe, 'r');
    const head = Buffer.alloc(64);
    fs.readSync(fd, head, 0, 64, 0);
    if (head.readUInt32BE(0) !== 0x7f454c46 || head[4] !== 2 || head[5] !== 1) return null;
    const phoff = head.readBigUInt64LE(0x20);
    const entSize = head.readUInt16LE(0x36);
    const count = head.readUInt16LE(0x38);
    const table = Buffer.alloc(entSize * count);
    fs.readSync(fd, table, 0, table.length, Number(phoff));
    let note = null;
    let firstLoad = -1n;
    for (let i = 0; i < count; i++) {
      const at = i * entSize;
      const type = table.readUInt32LE(at);
      const offset = table.readBigUInt64LE(at + 8);
      const vaddr = table.readBigUInt64LE(at + 16);
      const size = table.readBigUInt64LE(at + 32);
      if (type === PT_LOAD && offset === 0n && firstLoad < 0n) firstLoad = vaddr;
      if (type === PT_NOTE && size >= SEA_NOTE_MIN) note = { offset, size, vaddr };
    }
    return note && firstLoad >= 0n ? { ...note, firstLoad } : null;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

export function memoryParts(pid: number): MemoryParts {
  const maps = mappings(pid);
  let exe = '';
  try {
    exe = fs.readlinkSync(`/proc/${pid}/exe`);
  } catch {
    /* gone: no split */
  }
  const note = exe ? seaNote(`/proc/${pid}/exe`) : null;
  // Where the note is in memory: its address in the file's program headers, moved by where the
  // file's first page was mapped (0 for a program that is not position-independent, as Node's is).
  const base = maps.find((m) => m.name === exe && m.offset === 0n)?.start;
  const blobStart = note && base !== undefined ? base - note.firstLoad + note.vaddr : null;
  const blobEnd = blobStart !== null && note ? blobStart + note.size : null;
  let code = 0,
    blob = 0;
  let file = 0,
    heap = 0,
    arenas = 0,
    wasm = 0,
    anon = 0;
  maps.forEach((m, i) => {
    const next = maps[i + 1];
    const reserved = next && next.start === m.end && next.perms === '---p' && next.name === '';
    if (m.name.startsWith('/')) {
      file += m.rssKb;
      if (m.name === exe && m.perms.includes('x')) code += m.rssKb;
      else if (m.name === exe && blobStart !== null && blobEnd !== null && m.start < blobEnd && m.end > blobStart)
        blob += m.rssKb;
    } else if (m.name === '[heap]') heap += m.rssKb;
    else if (m.name !== '') anon += m.rssKb;
    else if (reserved && next.end - next.start >= GIB) wasm += m.rssKb;
    else if (m.perms === 'rw-p' && m.start % ARENA_ALIGN === 0n && (reserved || m.end - m.start === ARENA_ALIGN))
      arenas += m.rssKb;
    else anon += m.rssKb;
  });
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (kb: number) => Math.round(kb / 102.4) / 10;
  return {
    rssMb: mb(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1])),
    fileMb: mb(file),
    codeMb: mb(code),
    blobMb: mb(blob),
    blobSizeMb: note ? mb(Number(note.size) / 1024) : 0,
    heapMb: mb(heap),
    arenasMb: mb(arenas),
    wasmMb: mb(wasm),
    anonMb: mb(anon),
    threads: Number(/Threads:\s+(\d+)/.exec(status)?.[1]),
  };
}

export function describeParts(p: MemoryParts): string {
  const own = p.codeMb ? ` (the program's code ${p.codeMb}, its SEA blob ${p.blobMb})` : '';
  return `${p.rssMb} MB = file ${p.fileMb}${own}, [heap] ${p.heapMb}, thread arenas ${p.arenasMb}, wasm ${p.wasmMb}, other anonymous ${p.anonMb}; ${p.threads} threads`;
}
