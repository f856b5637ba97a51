// How many bytes one PATCH of a resumable upload carries. Every PATCH costs the same beyond its
// bytes: a round trip, the server's per-PATCH work, and a disk that idles from the last write of
// one PATCH to the first of the next: ~4-6 ms on loopback, where it weighs most. Measured there
// (256 MiB, the client of test/bench/upload.ts, server from source, 6 interleaved rounds), as a share
// of the same upload in one PATCH: 8 MiB PATCHes 0.79 (0.60-0.85 by round), 16 MiB 0.85, 32 MiB
// 1.02, 64 MiB 1.09 (at ~640 MB/s). So a PATCH is sized to last about PATCH_SECONDS at the speed
// the previous one went, from FIRST_CHUNK (the first PATCH, before anything is measured; what a
// slow link keeps sending, where a PATCH lasts long anyway) up to LARGEST_CHUNK.
//
// Why chunks at all, when Burrow keeps the bytes of a PATCH cut off midway: proxies refuse long
// bodies (Cloudflare at 100 MB, nginx at its client_max_body_size), so LARGEST_CHUNK stays well
// under 100 MB, and a proxy's 413 sends this and later uploads back to FIRST_CHUNK.

const MiB = 1024 * 1024;

export const FIRST_CHUNK = 8 * MiB;
export const LARGEST_CHUNK = 64 * MiB;
/** How long a PATCH should take: long enough that its fixed cost is a few per cent of it. */
export const PATCH_SECONDS = 0.5;

/** The next PATCH's size from the last one's (bytes sent in `ms`), in whole MiB, within the bounds. */
export function nextChunkSize(bytes: number, ms: number, largest = LARGEST_CHUNK): number {
  if (!(bytes > 0) || !(ms > 0)) return Math.min(FIRST_CHUNK, largest);
  const fits = ((bytes / ms) * 1000 * PATCH_SECONDS) / MiB;
  return Math.max(FIRST_CHUNK, Math.min(largest, Math.floor(fits) * MiB));
}
