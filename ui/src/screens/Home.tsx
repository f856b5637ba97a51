// Home: every place the account can browse, as cards with usage and read-only badges.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { Usage, Volume } from '../api/types.ts';
import { Icon, UsageBar } from '../components/common.tsx';
import { filesUrl, navigate } from '../state/router.ts';
import { favorites, features, volumes } from '../state/session.ts';
import { askUntilFinal, formatBytes } from '../util.ts';

const READ_ONLY: Record<string, string> = {
  storage: 'Read-only storage',
  permission: 'Not writable by the server',
  access: 'Read-only for you',
};

function VolumeCard({ volume }: { volume: Volume }) {
  const [usage, setUsage] = useState<Usage | null>(null);
  const counted = features.value.folderSize?.mode === 'full';
  // The figure lands in the background (a first walk, a part counted again): asked again until
  // final, so the card changes when the walk ends.
  useEffect(
    () =>
      askUntilFinal(
        () => api('GET /api/usage/*', { params: { path: volume.path } }),
        (u) => (u.held ? !u.held.complete : counted),
        setUsage,
        () => setUsage(null),
      ),
    [volume.path, counted],
  );
  const held = usage?.held ?? null;
  return (
    <a
      class="card volume-card"
      href={filesUrl(volume.path)}
      onClick={(e) => {
        e.preventDefault();
        navigate(filesUrl(volume.path));
      }}
    >
      <div class="card-title">
        <Icon name={volume.kind === 'personal' ? 'home' : 'folder'} size={22} />
        <span dir="auto">{volume.name}</span>
      </div>
      <div class="badges">
        {volume.kind === 'personal' && <span class="badge">Personal</span>}
        {volume.readOnly && <span class="badge read-only">{READ_ONLY[volume.readOnly] ?? 'Read-only'}</span>}
        {volume.accessMode === 'readonly' && !volume.readOnly && <span class="badge read-only">Read-only</span>}
      </div>
      {/* What this volume holds (the folder-size index), then the disk it is on: several volumes
          share a disk, so the disk's figures are never presented as the volume's. */}
      <span class="volume-held small">
        {held
          ? held.complete
            ? held.bytes
              ? `Holds ${formatBytes(held.bytes)}`
              : 'Empty'
            : `Holds at least ${formatBytes(held.bytes)} (still counting)`
          : '\u00a0'}
      </span>
      {usage && usage.total > 0 && (
        <>
          {features.value.volumeUsage?.enabled && <UsageBar used={usage.used} total={usage.total} label="Disk used" />}
          <span class="volume-disk muted small">
            Disk: {formatBytes(usage.free)} free of {formatBytes(usage.total)}
          </span>
        </>
      )}
    </a>
  );
}

export function Home() {
  return (
    <section class="home">
      <h1>Your places</h1>
      {!volumes.value.length && (
        <p class="muted">
          No volumes yet. An administrator adds folders under the volume root, or assigns volumes to your account.
        </p>
      )}
      <div class="cards">
        {volumes.value.map((v) => (
          <VolumeCard key={v.path} volume={v} />
        ))}
      </div>
      {favorites.value.length > 0 && (
        <>
          <h2>Favourites</h2>
          <div class="cards small-cards">
            {favorites.value.map((f) => (
              <a
                key={f.id}
                class="card"
                href={filesUrl(f.path)}
                onClick={(e) => {
                  e.preventDefault();
                  navigate(filesUrl(f.path));
                }}
              >
                <div class="card-title">
                  <Icon name="star" size={18} />
                  <span dir="auto">{f.label || f.path.slice(f.path.lastIndexOf('/') + 1)}</span>
                </div>
                <span class="muted small" dir="auto">
                  {f.path}
                </span>
              </a>
            ))}
          </div>
        </>
      )}
    </section>
  );
}
