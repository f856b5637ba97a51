// Installation settings (administrator): activity log, thumbnails, branding.
import { useEffect, useState } from 'preact/hooks';
import { get, patch } from '../api/client.ts';
import { ErrorNote } from '../components/common.tsx';
import type { Settings } from '../api/types.ts';
import { toast } from '../state/toasts.ts';

export function Installation() {
  const [s, setS] = useState<Settings | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    get<Settings>('/api/settings').then(setS, setError);
  }, []);
  const save = async (body: Settings) => {
    setError(null);
    try {
      const a = await patch<Settings>('/api/settings', body);
      setS({ ...s, ...a });
      toast('Settings saved');
    } catch (err) {
      setError(err);
    }
  };
  if (!s) return <ErrorNote error={error} />;
  const act = s.activity ?? { enabled: false, retentionDays: 90 };
  const th = s.thumbnails ?? { enabled: true, size: 256, quality: 80, concurrency: 4 };
  return (
    <div class="stack" style={{ maxWidth: '560px' }}>
      <ErrorNote error={error} />
      <h2>Activity log</h2>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          const fd = new FormData(e.currentTarget as HTMLFormElement);
          void save({
            activity: { enabled: fd.get('enabled') === 'on', retentionDays: Number(fd.get('retentionDays')) },
          });
        }}
      >
        <label class="check">
          <input type="checkbox" name="enabled" defaultChecked={act.enabled} /> Record sign-ins, token use,
          administration and settings changes
        </label>
        <label>
          Keep rows for (days)
          <input type="number" name="retentionDays" min={1} max={3650} defaultValue={String(act.retentionDays)} />
        </label>
        <div>
          <button class="primary">Save</button>
        </div>
      </form>
      <h2>Thumbnails</h2>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          const fd = new FormData(e.currentTarget as HTMLFormElement);
          void save({
            thumbnails: {
              enabled: fd.get('enabled') === 'on',
              size: Number(fd.get('size')),
              quality: Number(fd.get('quality')),
              concurrency: Number(fd.get('concurrency')),
            },
          });
        }}
      >
        <label class="check">
          <input type="checkbox" name="enabled" defaultChecked={th.enabled} /> Make thumbnails of pictures
        </label>
        <div class="form-grid">
          <label>
            Size (px)
            <input type="number" name="size" min={64} max={1024} defaultValue={String(th.size)} />
          </label>
          <label>
            Quality
            <input type="number" name="quality" min={1} max={100} defaultValue={String(th.quality)} />
          </label>
          <label>
            At once
            <input type="number" name="concurrency" min={1} max={50} defaultValue={String(th.concurrency)} />
          </label>
        </div>
        <div>
          <button class="primary">Save</button>
        </div>
      </form>
      <h2>Branding</h2>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          const fd = new FormData(e.currentTarget as HTMLFormElement);
          void save({ branding: { appName: String(fd.get('appName') ?? '') } });
        }}
      >
        <label>
          Name shown to users
          <input name="appName" defaultValue={s.branding?.appName ?? 'Burrow'} />
        </label>
        <div>
          <button class="primary">Save</button>
        </div>
      </form>
    </div>
  );
}
