// Home: every place the account can browse, as cards with usage and read-only badges.
import { useEffect, useState } from 'preact/hooks';
import { encodePath, get } from '../api/client.ts';
import type { Usage, Volume } from '../api/types.ts';
import { Icon, UsageBar } from '../components/common.tsx';
import { filesUrl, navigate } from '../state/router.ts';
import { favorites, features, volumes } from '../state/session.ts';
import { formatBytes } from '../util.ts';

const READ_ONLY: Record<string, string> = {
  storage: 'Read-only storage',
  permission: 'Not writable by the server',
  access: 'Read-only for you',
};

function VolumeCard({ volume }: { volume: Volume }) {
  const [usage, setUsage] = useState<Usage | null>(null);
  useEffect(() => {
    get<Usage>(`/api/usage/${encodePath(volume.path)}`).then(setUsage, () => setUsage(null));
  }, [volume.path]);
  const used = usage?.used ?? usage?.size;
  const total =
    usage?.total ?? (usage?.size !== undefined && usage?.free !== undefined ? usage.size + usage.free : undefined);
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
      {total && features.value.volumeUsage?.enabled ? (
        <>
          <UsageBar used={used} total={total} />
          <span class="muted small">
            {formatBytes(used)} of {formatBytes(total)} used · {formatBytes(usage?.free ?? total - (used ?? 0))} free
          </span>
        </>
      ) : (
        <span class="muted small">{usage?.size !== undefined ? `${formatBytes(usage.size)} used` : '\u00a0'}</span>
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
