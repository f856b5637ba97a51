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
  name: string;
  rssKb: number;
}

const ARENA_ALIGN = 64n * 1024n * 1024n;
const GIB = 1024n * 1024n * 1024n;

function mappings(pid: number): Mapping[] {
  const out: Mapping[] = [];
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      out.push({
        start: BigInt('0x' + header[1]),
        end: BigInt('0x' + header[2]),
        perms: header[3]!,
        name: header[4]!,
        rssKb: 0,
      });
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && out.length) out[out.length - 1]!.rssKb = Number(rss[1]);
  }
  return out;
}

export function memoryParts(pid: number): MemoryParts {
  const maps = mappings(pid);
  let file = 0,
    heap = 0,
    arenas = 0,
    wasm = 0,
    anon = 0;
  maps.forEach((m, i) => {
    const next = maps[i + 1];
    const reserved = next && next.start === m.end && next.perms === '---p' && next.name === '';
    if (m.name.startsWith('/')) file += m.rssKb;
    else if (m.name === '[heap]') heap += m.rssKb;
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
    heapMb: mb(heap),
    arenasMb: mb(arenas),
    wasmMb: mb(wasm),
    anonMb: mb(anon),
    threads: Number(/Threads:\s+(\d+)/.exec(status)?.[1]),
  };
}

export function describeParts(p: MemoryParts): string {
  return `${p.rssMb} MB = file ${p.fileMb}, [heap] ${p.heapMb}, thread arenas ${p.arenasMb}, wasm ${p.wasmMb}, other anonymous ${p.anonMb}; ${p.threads} threads`;
}
