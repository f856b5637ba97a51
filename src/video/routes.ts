// Video that plays (service.ts): the viewer asks how to play a video, then streams it through
// ffmpeg when the browser cannot play it as it is; a link's holder alike, when its owner allows.
import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { route } from '../http/route.ts';
import { assertNotForeignFetch } from '../http/origin.ts';
import type { PathResolver } from '../files/paths.ts';
import { AppError } from '../core/errors.ts';
import { inHeldLink } from '../shares/reads.ts';
import type { LinkHolder } from '../shares/holder.ts';
import type { Video, VideoStream } from './service.ts';
import { linkParams, linkPlanQuery, linkStreamQuery, planQuery, playPlan, streamQuery } from './wire.ts';

const TAGS = ['Video'];
const STREAM_DESCRIPTION =
  'Fragmented MP4 (`Content-Type: video/mp4`) from ffmpeg reading the file: its codecs copied when a browser plays them, re-encoded to H.264/AAC (at most 720 lines) otherwise, from `start` seconds (a seek asks for a new stream; the plan gives the whole duration). No Range: the stream has no length. One stream per file and viewer (a new one ends the last); viewers of the same file from the same start share one ffmpeg, however far it has got (a late viewer gets the whole video from the start, what it missed held in the cache folder); past VIDEO_STREAMS streams or VIDEO_TRANSCODES conversions at once, 503 VIDEO_BUSY. ffmpeg stops when the viewer goes away. Refused when another site asks (Sec-Fetch-Site).';
const STREAM_RESPONSES = {
  200: { description: 'The video as fragmented MP4', contentType: 'video/mp4' },
  400: 'Start at or past the end',
  403: 'Not readable, asked for by another site, or a link whose owner does not allow conversions (VIDEO_LINK_NOT_ALLOWED)',
  404: 'No such file',
  415: 'Not a video',
  501: 'ffmpeg is not installed on the server (VIDEO_NEEDS_FFMPEG)',
  503: 'As many videos are being converted as the server allows (VIDEO_BUSY)',
};

/** Sends the stream until ffmpeg ends it or the viewer goes away (then ffmpeg is killed). */
async function sendStream(res: ServerResponse, s: VideoStream): Promise<void> {
  res.writeHead(200, {
    'Content-Type': 'video/mp4',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'X-Video-Mode': s.mode,
  });
  res.on('close', s.stop);
  await pipeline(s.body, res).catch(() => {});
  s.stop();
}

export function videoRoutes(deps: { video: Video; resolver: PathResolver }) {
  const { video, resolver } = deps;

  /** A file of a link its holder may see (as shares' inline preview: the link lets them read it). */
  async function linkFile(link: LinkHolder, rel: string) {
    const r = await resolver.resolveInside(link.caller, inHeldLink(link.row, rel), { mustExist: true });
    if (r.isDirectory) throw new AppError('IS_A_FOLDER');
    if (!r.access.canRead) throw new AppError('LINK_NOT_ALLOWED', 'This link does not show this file.');
    return r;
  }

  return [
    route({
      method: 'GET',
      path: '/api/video/plan',
      access: 'account',
      tags: TAGS,
      summary: 'How a viewer is to play a video: as it is, repackaged or converted (ffprobe decides)',
      description:
        '`direct`: play `GET /api/preview`; `remux` or `transcode`: play `GET /api/video/stream` and show `duration` (the stream from an offset knows only its own). Without ffmpeg, kinds browsers play (MP4, WebM, Ogg) answer `direct` and the others 501 VIDEO_NEEDS_FFMPEG, whose message says what to install.',
      query: planQuery,
      responses: {
        200: { description: 'The plan', schema: playPlan },
        403: 'Not readable',
        404: 'No such file',
        415: 'Not a video, or one ffprobe cannot read',
        501: 'ffmpeg is not installed and the browser cannot play this video as it is (VIDEO_NEEDS_FFMPEG)',
      },
      handler: ({ caller, query }) => video.plan(caller, query.path),
    }),
    route({
      method: 'GET',
      path: '/api/video/stream',
      access: 'account',
      tags: TAGS,
      summary: 'A video the browser cannot play as it is, streamed through ffmpeg as fragmented MP4',
      description: STREAM_DESCRIPTION,
      query: streamQuery,
      responses: STREAM_RESPONSES,
      handler: async ({ caller, query, req, res }) => {
        assertNotForeignFetch(req);
        return sendStream(res, await video.stream(caller, query.path, query.start));
      },
    }),
    route({
      method: 'GET',
      path: '/api/share/:token/video/plan',
      access: 'link',
      tags: ['Shared links'],
      summary: "How a link's holder is to play one of its videos",
      description:
        'As `GET /api/video/plan`; `direct` plays `GET /api/share/{token}/file?mode=inline`. A video that needs converting answers 403 VIDEO_LINK_NOT_ALLOWED unless the link allows it (`allowTranscode`, off by default).',
      params: linkParams,
      query: linkPlanQuery,
      responses: {
        200: { description: 'The plan', schema: playPlan },
        403: 'The link shows nothing, or its owner does not allow conversions (VIDEO_LINK_NOT_ALLOWED)',
        404: 'No such link or file',
        415: 'Not a video',
        501: 'ffmpeg is not installed (VIDEO_NEEDS_FFMPEG)',
      },
      handler: async ({ link, query }) =>
        video.planChecked(await linkFile(link, query.path), link.row.allow_transcode === 1),
    }),
    route({
      method: 'GET',
      path: '/api/share/:token/video/stream',
      access: 'link',
      tags: ['Shared links'],
      summary: "One of a link's videos streamed through ffmpeg, when the link's owner allows it",
      description: `${STREAM_DESCRIPTION} Never started unless the link allows it (\`allowTranscode\`).`,
      params: linkParams,
      query: linkStreamQuery,
      responses: STREAM_RESPONSES,
      handler: async ({ link, query, req, res, ip }) => {
        assertNotForeignFetch(req);
        const file = await linkFile(link, query.path);
        const stream = await video.streamChecked(
          file,
          `link:${link.row.id}:${ip}`,
          query.start,
          link.row.allow_transcode === 1,
        );
        return sendStream(res, stream);
      },
    }),
  ];
}
