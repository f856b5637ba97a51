// Video that plays: a video the browser cannot play as it is (MKV, AVI, WMV, HEVC, MPEG-4 Part 2…)
// is streamed through ffmpeg as fragmented MP4 — its codecs copied when the browser plays them
// (a remux: cheap), re-encoded to H.264/AAC at most 720 lines otherwise (a transcode: about a
// core) — from a start time (a seek asks for a new stream: `-ss` before the input).
//
// ffmpeg reads the descriptor the resolver's check opened (its fd 3, named `/dev/fd/3`): no path
// of ours, no name of the user's (a file called `-i evil.mkv` is never an argument) and no shell.
// Streams are bounded: VIDEO_STREAMS ffmpeg processes at once, VIDEO_TRANSCODES of them
// re-encoding; one stream per file and viewer (a seek replaces the viewer's stream of that file,
// never adds one); viewers of the same file from the same time share one ffmpeg, however far it
// has got (broadcast.ts: a late viewer reads what it missed from a spill file in the cache
// folder); a viewer past the bounds is answered VIDEO_BUSY. ffmpeg is
// killed when its last viewer goes away and when the server stops. Services never see req/res: a stream is handed to
// the route as a readable body and a stop function.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { Caller } from '../core/caller.ts';
import { AppError } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { openFileIn, type OpenedFile } from '../files/confined.ts';
import { kindOf } from '../files/items.ts';
import { VIDEO_KINDS } from '../files/kinds.ts';
import type { InsidePath, PathResolver } from '../files/paths.ts';
import { ffprobe, type Probe } from '../metadata/read.ts';
import type { PlayMode, PlayPlan } from './wire.ts';
import { broadcast, type Broadcast } from './broadcast.ts';

/** Containers a browser plays (by the file's kind: ffprobe names MP4 and MOV alike). */
const DIRECT_CONTAINERS = new Set(['mp4', 'm4v', 'mov', 'webm', 'ogv']);
/** Kinds browsers play as they are when nothing tells us otherwise (no ffprobe). */
const DIRECT_WITHOUT_PROBE = new Set(['mp4', 'm4v', 'webm', 'ogv']);
const BROWSER_VIDEO = new Set(['h264', 'vp8', 'vp9', 'av1', 'theora']);
const BROWSER_AUDIO = new Set(['aac', 'mp3', 'opus', 'vorbis', 'flac']);
/** Codecs an MP4 carries and every browser plays: copied as they are. */
const COPY_VIDEO = new Set(['h264']);
const COPY_AUDIO = new Set(['aac', 'mp3']);
/** 8-bit 4:2:0: what browsers decode of H.264 (High 10 and 4:2:2 are not). */
const PLAIN_PIXELS = new Set(['yuv420p', 'yuvj420p']);
const MAX_LINES = 720;
const PROBE_CACHE = 256;

export interface VideoStream {
  mode: PlayMode;
  body: Readable;
  /** Kills ffmpeg (the viewer went away); called again, it does nothing. */
  stop(): void;
}

interface Job {
  /** The file's version, the mode and the start: who may share this ffmpeg. */
  key: string;
  child: ChildProcess;
  transcode: boolean;
  /** Its readers, each with its viewer (a seek of that viewer takes it out). */
  cast: Broadcast;
  stop(): void;
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** How a browser plays a video of this kind with these streams. */
export function decide(kind: string, probe: Probe): { mode: PlayMode; reason: string } {
  const video = probe.streams?.find((s) => s.codec_type === 'video');
  const audio = probe.streams?.find((s) => s.codec_type === 'audio');
  const v = video?.codec_name ?? null;
  const a = audio?.codec_name ?? null;
  const plainPixels = !video?.pix_fmt || PLAIN_PIXELS.has(video.pix_fmt);
  const videoPlays = v === null || (BROWSER_VIDEO.has(v) && plainPixels);
  const audioPlays = a === null || BROWSER_AUDIO.has(a);
  if (DIRECT_CONTAINERS.has(kind) && videoPlays && audioPlays)
    return {
      mode: 'direct',
      reason: `The browser plays ${kind.toUpperCase()} with ${[v, a].filter(Boolean).join('/')}.`,
    };
  if (v !== null && COPY_VIDEO.has(v) && plainPixels)
    return {
      mode: 'remux',
      reason: `Its ${v} video plays in a browser but its ${kind.toUpperCase()} container does not: repackaged as MP4 without re-encoding${a && !COPY_AUDIO.has(a) ? ` (its ${a} sound converted to AAC)` : ''}.`,
    };
  return {
    mode: 'transcode',
    reason: `Its ${v ?? 'unknown'} video does not play in a browser: converted to H.264${v && video?.pix_fmt && !plainPixels ? ` (${video.pix_fmt})` : ''}.`,
  };
}

/** ffmpeg's arguments: the input is always our fd 3, never a name. */
export function ffmpegArgs(mode: PlayMode, probe: Probe, start: number): string[] {
  const audio = probe.streams?.find((s) => s.codec_type === 'audio');
  const video = probe.streams?.find((s) => s.codec_type === 'video');
  const copyVideo = mode !== 'transcode' && COPY_VIDEO.has(video?.codec_name ?? '');
  const args = ['-hide_banner', '-nostdin', '-v', 'error'];
  if (start > 0) args.push('-ss', start.toFixed(3));
  args.push('-i', '/dev/fd/3', '-map', '0:v:0?', '-map', '0:a:0?', '-sn', '-dn');
  if (copyVideo) args.push('-c:v', 'copy');
  else
    args.push(
      '-c:v',
      'libx264',
      '-preset',
      'veryfast',
      '-crf',
      '23',
      '-pix_fmt',
      'yuv420p',
      '-vf',
      `scale=-2:'min(${MAX_LINES},ih)'`,
      '-g',
      '48',
    );
  if (audio && COPY_AUDIO.has(audio.codec_name ?? '') && copyVideo) args.push('-c:a', 'copy');
  else args.push('-c:a', 'aac', '-b:a', '160k', '-ac', '2');
  args.push('-f', 'mp4', '-movflags', 'frag_keyframe+empty_moov+default_base_moof', 'pipe:1');
  return args;
}

export function createVideo(deps: {
  resolver: PathResolver;
  limits: () => { transcodes: number; streams: number };
  /** Where a stream's output is held for viewers behind its newest bytes (the cache folder's). */
  spillDir: string;
  log: Logger;
}) {
  const { resolver, log } = deps;
  const jobs = new Set<Job>();
  const probes = new Map<string, Probe | null>();

  async function readable(caller: Caller, virtual: string): Promise<InsidePath> {
    const file = await resolver.resolveInside(caller, virtual, { mustExist: true, atTop: 'Name a file, not the top.' });
    if (file.isDirectory) throw new AppError('IS_A_FOLDER');
    if (!file.access.canRead) throw new AppError('FORBIDDEN', 'You may not read this file.');
    return file;
  }

  const kindOfFile = (file: InsidePath) => {
    const kind = kindOf(file.virtualPath.slice(file.virtualPath.lastIndexOf('/') + 1), false);
    if (!VIDEO_KINDS.has(kind))
      throw new AppError('NOT_PREVIEWABLE', `Files of kind "${kind}" are not video; download it instead.`);
    return kind;
  };

  /** ffprobe of the opened file, kept per file version (a plan and its streams probe once); null: no ffprobe. */
  async function probeOf(opened: OpenedFile): Promise<Probe | null> {
    const key = `${opened.real}\0${opened.stat.size}\0${opened.stat.mtimeMs}\0${opened.stat.ino}`;
    if (probes.has(key)) return probes.get(key)!;
    const probe = await ffprobe(opened.fd).catch(() => {
      throw new AppError('UNSUPPORTED_TYPE', 'This video could not be read: it may be damaged.');
    });
    probes.set(key, probe);
    if (probes.size > PROBE_CACHE) probes.delete(probes.keys().next().value!);
    return probe;
  }

  async function planOf(file: InsidePath, mayConvert: boolean): Promise<PlayPlan> {
    const kind = kindOfFile(file);
    const opened = await openFileIn(file.space.root, file.realPath);
    let probe: Probe | null;
    try {
      probe = await probeOf(opened);
    } finally {
      await opened.close();
    }
    if (!probe) {
      if (DIRECT_WITHOUT_PROBE.has(kind))
        return {
          mode: 'direct',
          duration: null,
          width: null,
          height: null,
          videoCodec: null,
          audioCodec: null,
          container: kind,
          reason: `Browsers play ${kind.toUpperCase()}.`,
        };
      throw new AppError('VIDEO_NEEDS_FFMPEG');
    }
    const { mode, reason } = decide(kind, probe);
    if (mode !== 'direct' && !mayConvert) throw new AppError('VIDEO_LINK_NOT_ALLOWED');
    const video = probe.streams?.find((s) => s.codec_type === 'video');
    const audio = probe.streams?.find((s) => s.codec_type === 'audio');
    const duration = Number(probe.format?.duration ?? video?.duration);
    return {
      mode,
      duration: Number.isFinite(duration) ? duration : null,
      width: num(video?.width),
      height: num(video?.height),
      videoCodec: video?.codec_name ?? null,
      audioCodec: audio?.codec_name ?? null,
      container: probe.format?.format_name ?? null,
      reason,
    };
  }

  /** Ends one viewer's stream of a file (a seek replaces it); the last reader leaving ends ffmpeg. */
  function replace(viewer: string): void {
    for (const job of [...jobs]) for (const body of job.cast.readersOf(viewer)) job.cast.leave(body);
  }

  const reader = (job: Job, body: Readable, mode: PlayMode): VideoStream => ({
    mode,
    body,
    stop: () => job.cast.leave(body),
  });

  async function streamOf(file: InsidePath, viewer: string, start: number, mayConvert: boolean): Promise<VideoStream> {
    const kind = kindOfFile(file);
    const opened = await openFileIn(file.space.root, file.realPath);
    try {
      const probe = await probeOf(opened);
      if (!probe) throw new AppError('VIDEO_NEEDS_FFMPEG');
      if (!mayConvert) throw new AppError('VIDEO_LINK_NOT_ALLOWED');
      const duration = Number(probe.format?.duration);
      if (Number.isFinite(duration) && start >= duration)
        throw new AppError('BAD_REQUEST', `The video is ${duration.toFixed(1)} seconds long: start before its end.`);
      const { mode } = decide(kind, probe);
      const transcode = mode === 'transcode';
      const viewerKey = `${viewer}\0${opened.real}`;
      replace(viewerKey);
      const { ino, mtimeMs, size } = opened.stat;
      const key = [opened.real, ino, mtimeMs, size, mode, start].join('\0');
      for (const job of jobs) {
        if (job.key !== key) continue;
        const body = job.cast.join(viewerKey);
        if (body) return reader(job, body, mode);
      }
      const { streams, transcodes } = deps.limits();
      // Processes running (a stream ffmpeg finished whose viewers still read it costs nothing).
      const running = [...jobs].filter((j) => j.child.exitCode === null && j.child.signalCode === null);
      if (running.length >= streams || (transcode && running.filter((j) => j.transcode).length >= transcodes))
        throw new AppError('VIDEO_BUSY');
      const child = spawn('ffmpeg', ffmpegArgs(mode, probe, start), {
        stdio: ['ignore', 'pipe', 'pipe', opened.fd],
        windowsHide: true,
      });
      let errText = '';
      child.stderr!.on('data', (b: Buffer) => {
        if (errText.length < 2000) errText += b.toString();
      });
      const job: Job = {
        key,
        child,
        transcode,
        cast: broadcast(child.stdout!, { spillDir: deps.spillDir, onIdle: () => job.stop() }),
        stop() {
          jobs.delete(job);
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        },
      };
      jobs.add(job);
      child.on('error', (err: NodeJS.ErrnoException) => {
        log.warn('ffmpeg did not start', { error: err.message });
        job.stop();
      });
      child.on('close', (code, signal) => {
        // A whole video, still being read, stays joinable from its spill file.
        if (code !== 0 || signal !== null || job.cast.readers === 0) jobs.delete(job);
        if (code !== 0 && signal === null)
          log.warn('ffmpeg stopped a video stream', { code, error: errText.trim().slice(0, 300) });
      });
      return reader(job, job.cast.join(viewerKey)!, mode);
    } finally {
      // ffmpeg holds its own copy of the descriptor.
      await opened.close();
    }
  }

  return {
    /** GET /api/video/plan: how the viewer is to play this video. */
    async plan(caller: Caller, virtual: string): Promise<PlayPlan> {
      return planOf(await readable(caller, virtual), true);
    },
    /** GET /api/video/stream: the video through ffmpeg as fragmented MP4 from `start` seconds. */
    async stream(caller: Caller, virtual: string, start: number): Promise<VideoStream> {
      return streamOf(await readable(caller, virtual), `account:${caller.userId}`, start, true);
    },
    /** The plan of a file a link resolved and checked (shares' holder): conversion only when its owner allows. */
    planChecked: planOf,
    /** A stream of a file a link resolved and checked; `viewer` tells its visitors apart. */
    streamChecked: streamOf,
    /** ffmpeg processes streaming now (tests, features). */
    running: () => jobs.size,
    /** Kills every stream (server stop). */
    stop(): void {
      for (const job of [...jobs]) job.stop();
    },
  };
}

export type Video = ReturnType<typeof createVideo>;
