// What reading a file says, for metadata: image dimensions (@napi-rs/image, loaded lazily so a
// broken add-on only loses this), audio/video duration (music-metadata), PDF page count.
// Every reader is bounded and failure-tolerant: a damaged file just yields fewer facts.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { createRequire } from 'node:module';

const IMAGE = new Set(['jpg', 'jpeg', 'png', 'webp', 'gif', 'bmp', 'tif', 'tiff', 'avif', 'ico']);
const AUDIO = new Set(['mp3', 'flac', 'wav', 'ogg', 'oga', 'm4a', 'aac', 'opus', 'wma', 'aiff']);
const VIDEO = new Set(['mp4', 'm4v', 'mov', 'mkv', 'webm', 'avi', 'wmv', 'mpg', 'mpeg', 'ogv', '3gp']);
const MAX_IMAGE_BYTES = 64 * 1024 * 1024;
const MAX_PDF_BYTES = 64 * 1024 * 1024;

type ImageModule = {
  Transformer: new (input: Buffer) => {
    metadata(withExif?: boolean): Promise<{ width: number; height: number; orientation?: number | null }>;
  };
};
let imageModule: ImageModule | null | undefined;
function images(): ImageModule | null {
  if (imageModule === undefined) {
    try {
      imageModule = createRequire(import.meta.url)('@napi-rs/image') as ImageModule;
    } catch {
      imageModule = null;
    }
  }
  return imageModule;
}

async function imageFacts(file: string, size: number) {
  const mod = images();
  if (!mod || size > MAX_IMAGE_BYTES) return {};
  const meta = await new mod.Transformer(await fsp.readFile(file)).metadata(false);
  return {
    image: {
      width: meta.width,
      height: meta.height,
      orientation: meta.orientation ?? null,
      cameraMake: null,
      cameraModel: null,
      lensModel: null,
      software: null,
      dateTaken: null,
      gps: null,
    },
  };
}

async function mediaFacts(file: string, isVideo: boolean) {
  const { parseFile } = await import('music-metadata');
  const meta = await parseFile(file, { duration: true, skipCovers: true });
  const duration = typeof meta.format.duration === 'number' ? meta.format.duration : null;
  if (!isVideo) return { audio: { duration, codec: meta.format.codec ?? null, bitrate: meta.format.bitrate ?? null } };
  const track = meta.format.trackInfo?.find((t) => t.video);
  return { video: { width: track?.video?.pixelWidth ?? null, height: track?.video?.pixelHeight ?? null, duration } };
}

/** Counts page objects of a PDF (`/Type /Page`, not `/Pages`), streamed. */
async function pdfFacts(file: string, size: number) {
  if (size > MAX_PDF_BYTES) return {};
  let pages = 0;
  let tail = '';
  for await (const chunk of fs.createReadStream(file, { encoding: 'latin1', highWaterMark: 1 << 20 })) {
    const text = tail + chunk;
    pages += text.match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;
    tail = text.slice(-32);
    // The overlap may double count a match ending inside it; remove what the tail already held.
    pages -= tail.match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;
  }
  pages += tail.match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;
  return { document: { pages }, pages };
}

export async function readMediaFacts(file: string, kind: string, size: number): Promise<Record<string, unknown>> {
  try {
    if (IMAGE.has(kind)) return await imageFacts(file, size);
    if (AUDIO.has(kind) || VIDEO.has(kind)) return await mediaFacts(file, VIDEO.has(kind));
    if (kind === 'pdf') return await pdfFacts(file, size);
  } catch {
    // A file that does not parse has no further facts.
  }
  return {};
}
