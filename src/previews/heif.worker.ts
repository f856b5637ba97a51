// The HEIF decoder thread (HEIC from phones, HEIF): libheif with libde265 compiled to
// WebAssembly (libheif-js), so no system library or program is needed. It decodes one picture
// at a time into RGBA pixels, which go back to the thread that asked (heif.ts) by transfer, not
// copied. A 12 MP picture takes hundreds of milliseconds of this thread's time, never the
// event loop of the process that asked. Its WebAssembly memory grows to the largest picture
// decoded and is never given back while the thread lives: its owner ends it when idle or
// when that memory passes a bound (heif.ts).
import { parentPort } from 'node:worker_threads';
import createLibheif from 'libheif-js/libheif-wasm/libheif-bundle.js';
import type { HeifReply, HeifRequest } from './heif.ts';

// libheif's console (e.g. "Could not parse HEIF file") is not the server's log: the failure is
// answered instead.
let lastError = '';
const libheif = createLibheif({ print: () => {}, printErr: (s) => (lastError = s) });
const port = parentPort!;

async function decode(m: HeifRequest): Promise<HeifReply> {
  lastError = '';
  const images = new libheif.HeifDecoder().decode(m.bytes);
  try {
    const picture = images[0];
    if (!picture) return { id: m.id, error: lastError || 'not a HEIF picture' };
    const width = picture.get_width();
    const height = picture.get_height();
    if (!(width > 0 && height > 0) || width * height > m.maxPixels)
      return { id: m.id, error: 'picture too large for a thumbnail' };
    // display() converts to RGBA and applies the picture's own rotation and mirroring (irot, imir).
    const data = new Uint8ClampedArray(width * height * 4);
    const shown = await new Promise<{ data: Uint8ClampedArray } | null>((resolve) =>
      picture.display({ data, width, height }, resolve),
    );
    if (!shown) return { id: m.id, error: lastError || 'the picture does not decode' };
    return { id: m.id, width, height, pixels: shown.data, heapBytes: libheif.HEAPU8.length };
  } finally {
    for (const image of images) image.free();
  }
}

port.on('message', (m: HeifRequest) => {
  decode(m)
    .catch((err: unknown): HeifReply => ({ id: m.id, error: String((err as Error)?.message ?? err) }))
    .then((reply) => port.postMessage(reply, 'pixels' in reply ? [reply.pixels.buffer as ArrayBuffer] : []));
});
