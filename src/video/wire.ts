// Video that plays (service.ts): how a viewer is to play a video, and the stream it asks for.
import { z } from 'zod';
import { queryPath } from '../http/query.ts';

export const playMode = z
  .enum(['direct', 'remux', 'transcode'])
  .describe(
    '`direct`: the browser plays the file as it is (`GET /api/preview`); `remux`: its codecs play but not its container (MKV, AVI…), so ffmpeg repackages them as fragmented MP4 without re-encoding (cheap); `transcode`: ffmpeg re-encodes it (H.264/AAC, at most 720 lines; about a core per viewer)',
  );
export type PlayMode = z.infer<typeof playMode>;

export const playPlan = z.object({
  mode: playMode,
  duration: z.number().nullable().describe('Seconds (ffprobe); a converted stream has no length of its own'),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  videoCodec: z.string().nullable(),
  audioCodec: z.string().nullable(),
  container: z.string().nullable(),
  reason: z.string().describe('Why this way, in a sentence (for the viewer and for support)'),
});
export type PlayPlan = z.infer<typeof playPlan>;

/** Where a converted stream starts, in seconds of the video (a seek asks for a new stream). */
const start = z.coerce
  .number()
  .min(0)
  .max(7 * 24 * 3600)
  .default(0)
  .describe('Where the stream starts, in seconds of the video (a seek asks for a new stream from there)');

export const planQuery = z.object({ path: queryPath('virtual', z.string()) });
export const streamQuery = z.object({ path: queryPath('virtual', z.string()), start });
const linkPath = queryPath('link', z.string().max(4096).default(''));
export const linkParams = z.object({ token: z.string().max(200) });
export const linkPlanQuery = z.object({ path: linkPath });
export const linkStreamQuery = z.object({ path: linkPath, start });
