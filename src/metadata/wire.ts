// What a file says about itself (read.ts): a photo's camera facts and place, a song's tags, a
// video's streams, a document's title and author. Every field may be null: a file says what it says.
import { z } from 'zod';

const n = z.number().nullable();
const s = z.string().nullable();

export const gps = z
  .object({
    latitude: z.number().describe('Degrees, south negative'),
    longitude: z.number().describe('Degrees, west negative'),
    altitude: n.describe('Metres above sea level'),
  })
  .describe('Where the photo was taken (EXIF GPS). Only to callers who may read the file; never to a link holder');
export type Gps = z.infer<typeof gps>;

export const imageFacts = z.object({
  width: n,
  height: n,
  orientation: n.describe('EXIF orientation 1..8 (renditions and thumbnails are shown upright)'),
  cameraMake: s,
  cameraModel: s,
  lensModel: s,
  software: s,
  dateTaken: s.describe("When the photo was taken, the camera's own clock: `YYYY-MM-DDTHH:MM:SS` (no zone)"),
  exposureTime: n.describe('Seconds'),
  fNumber: n,
  iso: n,
  focalLength: n.describe('Millimetres'),
  gps: gps.nullable().optional(),
});
export type ImageFacts = z.infer<typeof imageFacts>;

export const audioFacts = z.object({
  duration: n.describe('Seconds'),
  codec: s,
  bitrate: n,
  title: s,
  artist: s,
  album: s,
  albumArtist: s,
  track: z.number().int().nullable(),
  trackCount: z.number().int().nullable(),
  year: z.number().int().nullable(),
  genre: s,
  hasCover: z.boolean().describe('The song carries a picture: its thumbnail (`GET /api/thumbnails/*`) is that cover'),
});
export type AudioFacts = z.infer<typeof audioFacts>;

export const videoFacts = z.object({
  width: n,
  height: n,
  duration: n.describe('Seconds'),
  videoCodec: s,
  audioCodec: s,
  container: s,
  source: z.enum(['ffprobe', 'header']).describe('ffprobe when ffmpeg is installed, otherwise the container header'),
});
export type VideoFacts = z.infer<typeof videoFacts>;

export const documentFacts = z.object({
  pages: z.number().int().nullable().optional(),
  title: s.optional(),
  author: s.optional(),
});
export type DocumentFacts = z.infer<typeof documentFacts>;

/** What reading a file adds to its metadata answer (none, or one of these). */
export const fileFacts = z.object({
  image: imageFacts.optional(),
  audio: audioFacts.optional(),
  video: videoFacts.optional(),
  document: documentFacts.optional(),
  pages: z.number().int().optional().describe('A PDF: its pages (also `document.pages`)'),
});
export type FileFacts = z.infer<typeof fileFacts>;
