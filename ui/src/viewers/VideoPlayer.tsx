// A video in the viewer (and on a link's page): the server says how it plays (GET /api/video/plan,
// src/video). A video the browser plays as it is gets the browser's own player. One it cannot
// (MKV, AVI, WMV, HEVC…) is streamed through the server's ffmpeg as fragmented MP4, which has no
// length and no seeking of its own: this player shows the whole duration from the plan, and a
// seek asks for a new stream from that time (`start`), the position being that start plus the
// stream's own time. Without ffmpeg, or on a link whose owner does not allow conversions, the
// server's sentence says what to do.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiAnswer } from '../../../src/contract.ts';
import { Icon } from '../components/common.tsx';

export type PlayPlan = ApiAnswer<'GET /api/video/plan'>;

export interface VideoSource {
  /** Stable per file: a new key loads a new plan. */
  key: string;
  plan: () => Promise<PlayPlan>;
  /** The file's bytes as they are (a plan of `direct`). */
  directUrl: string;
  /** The converted stream from `start` seconds. */
  streamUrl: (start: number) => string;
}

const clock = (t: number) => {
  if (!Number.isFinite(t) || t < 0) return '0:00';
  const s = Math.floor(t % 60);
  const m = Math.floor(t / 60) % 60;
  const h = Math.floor(t / 3600);
  return `${h ? `${h}:${String(m).padStart(2, '0')}` : m}:${String(s).padStart(2, '0')}`;
};

export function VideoPlayer({ source, name, class: cls }: { source: VideoSource; name: string; class: string }) {
  const [plan, setPlan] = useState<PlayPlan | null>(null);
  const [error, setError] = useState('');
  const [start, setStart] = useState(0);
  const [at, setAt] = useState(0);
  const [playing, setPlaying] = useState(false);
  const [seeking, setSeeking] = useState<number | null>(null);
  const video = useRef<HTMLVideoElement>(null);
  const stage = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let live = true;
    setPlan(null);
    setError('');
    setStart(0);
    setAt(0);
    source.plan().then(
      (p) => live && setPlan(p),
      (err: Error) => live && setError(err.message || 'This video cannot be played here.'),
    );
    return () => {
      live = false;
    };
  }, [source.key]);

  // A video element taken out of the page keeps its download going until it is collected: the
  // server's ffmpeg would go on converting for nobody after a seek (a new element per start) or
  // once the viewer closed. Emptying its source ends the request, and with it the stream.
  useEffect(() => {
    const v = video.current;
    return () => {
      if (!v) return;
      v.pause();
      v.removeAttribute('src');
      v.load();
    };
  }, [plan, start]);

  if (error)
    return (
      <div class="viewer-message video-message" role="alert">
        <Icon name="file" size={56} />
        <p>
          <strong>This video cannot play here</strong>
        </p>
        <p class="muted">{error}</p>
      </div>
    );
  if (!plan) return <p class="muted">Preparing the video…</p>;
  if (plan.mode === 'direct')
    return (
      <video
        ref={video}
        class={cls}
        src={source.directUrl}
        controls
        autoplay
        playsInline
        preload="metadata"
        aria-label={name}
        data-mode="direct"
      />
    );

  const duration = plan.duration ?? 0;
  const position = seeking ?? at;
  const seekTo = (t: number) => {
    const to = Math.max(0, Math.min(t, Math.max(0, duration - 0.5)));
    setSeeking(null);
    setStart(to);
    setAt(to);
    // A new element plays from there: the button says Play until it does (autoplay, or a press).
    setPlaying(false);
  };
  /** Events of this start's element only: the one a seek replaced still fires (its pause, its emptied stream). */
  const mine = (e: Event) => e.currentTarget === video.current;
  const toggle = () => {
    const v = video.current;
    if (!v) return;
    if (v.paused) void v.play().catch(() => {});
    else v.pause();
  };
  return (
    <div class="video-stage" ref={stage}>
      <video
        key={start}
        ref={video}
        class={cls}
        src={source.streamUrl(start)}
        autoplay
        playsInline
        preload="auto"
        aria-label={name}
        data-mode={plan.mode}
        data-start={start}
        onClick={toggle}
        onTimeUpdate={(e) => mine(e) && setAt(start + (e.currentTarget as HTMLVideoElement).currentTime)}
        onPlay={(e) => mine(e) && setPlaying(true)}
        onPause={(e) => mine(e) && setPlaying(false)}
        onError={(e) =>
          mine(e) &&
          setError(
            'The server could not stream this video (it may be busy converting others, or the file is damaged). Try again later, or download it.',
          )
        }
      />
      <div class="video-controls">
        <button type="button" class="icon-button" onClick={toggle} aria-label={playing ? 'Pause' : 'Play'}>
          {playing ? '❚❚' : '▶'}
        </button>
        <span class="video-time" aria-live="off">
          {clock(position)} / {clock(duration)}
        </span>
        <input
          type="range"
          class="video-seek"
          aria-label="Position"
          min={0}
          max={duration || 0}
          step={0.1}
          value={position}
          disabled={!duration}
          onInput={(e) => setSeeking(Number((e.currentTarget as HTMLInputElement).value))}
          onChange={(e) => seekTo(Number((e.currentTarget as HTMLInputElement).value))}
        />
        <button
          type="button"
          class="icon-button"
          aria-label="Full screen"
          onClick={() => {
            if (document.fullscreenElement) void document.exitFullscreen();
            else void stage.current?.requestFullscreen?.().catch(() => {});
          }}
        >
          ⛶
        </button>
      </div>
      <p class="muted small video-note">
        {plan.mode === 'remux' ? 'Repackaged by the server to play here.' : 'Converted by the server to play here.'}
      </p>
    </div>
  );
}
