// Bytes sent in place of some of a file's own, the same length (a link holder's photo without
// its place: metadata/location.ts): applied to each chunk as it is read, so Range, sizes and
// every other byte stay the file's.

/** `bytes` stand for the file's bytes at `at` .. `at + bytes.length - 1`. */
export interface Patch {
  at: number;
  bytes: Buffer;
}

/** Writes into `chunk` (the file's bytes from `pos`) the parts of `patches` that fall inside it. */
export function applyPatches(chunk: Buffer, pos: number, patches: readonly Patch[]): void {
  const end = pos + chunk.length;
  for (const p of patches) {
    const from = Math.max(pos, p.at);
    const to = Math.min(end, p.at + p.bytes.length);
    if (from < to) p.bytes.copy(chunk, from - pos, from - p.at, to - p.at);
  }
}
