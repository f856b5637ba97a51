// What a song says about itself, above its player: its cover (the song's thumbnail, a
// screen-sized rendition of the picture it carries) or the audio icon, its title, artist, album,
// track and year (GET /api/metadata/*). The file's name stands in for a song without tags.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { Metadata } from '../api/types.ts';
import { Icon } from '../components/common.tsx';
import { renditionUrl } from './urls.ts';

export function SongCard({ path, name }: { path: string; name: string }) {
  const [audio, setAudio] = useState<Metadata['audio'] | null>(null);
  const [cover, setCover] = useState('');
  useEffect(() => {
    let live = true;
    setAudio(null);
    setCover('');
    api('GET /api/metadata/*', { params: { path } }).then(
      (m) => {
        if (!live) return;
        setAudio(m.audio ?? null);
        if (m.audio?.hasCover)
          void renditionUrl(path, 640).then(
            (url) => live && setCover(url),
            () => {},
          );
      },
      () => {},
    );
    return () => {
      live = false;
    };
  }, [path]);
  const line = [audio?.album, audio?.year].filter(Boolean).join(' · ');
  return (
    <div class="song-card">
      {cover ? (
        <img class="song-cover" src={cover} alt={`Cover of ${audio?.album ?? audio?.title ?? name}`} />
      ) : (
        <Icon name="audio" size={72} />
      )}
      <div class="song-tags" dir="auto">
        <strong class="song-title">{audio?.title ?? name}</strong>
        {audio?.artist && <span class="song-artist">{audio.artist}</span>}
        {line && (
          <span class="muted small">
            {line}
            {audio?.track ? ` · track ${audio.track}${audio.trackCount ? ` of ${audio.trackCount}` : ''}` : ''}
          </span>
        )}
      </div>
    </div>
  );
}
