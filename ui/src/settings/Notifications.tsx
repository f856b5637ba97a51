// Settings → Notifications: what this account is told of, where (among the destinations the
// administrator added), and which folders it watches for uploads, changes and deletions.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { ApiAnswer } from '../../../src/contract.ts';
import { FolderPicker } from '../components/FolderPicker.tsx';
import { ThisBrowser } from '../notify/ThisBrowser.tsx';
import { ErrorNote, Icon } from '../components/common.tsx';
import { useSubmit } from '../components/useSubmit.ts';
import { toast } from '../state/toasts.ts';
import './notifications.css';

type Prefs = ApiAnswer<'GET /api/notify/prefs'>['prefs'];
type Kind = Prefs['kinds'][number];
type Choosable = ApiAnswer<'GET /api/notify/destinations'>['destinations'][number];

/** Every kind an account may choose, in the words the screen uses. */
const KINDS: { kind: Kind; label: string; folders?: true }[] = [
  { kind: 'folder.uploaded', label: 'Files added to a folder I watch', folders: true },
  { kind: 'folder.changed', label: 'Files changed, renamed or moved in a folder I watch', folders: true },
  { kind: 'folder.deleted', label: 'Files deleted from a folder I watch', folders: true },
  { kind: 'files.arrived', label: 'Files arriving through my file requests' },
  { kind: 'share.received', label: 'Something shared with me' },
  { kind: 'link.opened', label: 'One of my links opened for the first time' },
  { kind: 'link.downloaded', label: 'Downloads through my links (with their count)' },
  { kind: 'signin.new-address', label: 'A sign-in to my account from a new address' },
  { kind: 'signin.new-device', label: 'A sign-in to my account from a new device (browser)' },
  { kind: 'signin.lockout', label: 'My account locked after failed sign-ins (administrators: any account)' },
  { kind: 'signin.second-factor-failed', label: 'My password used with a wrong second-factor code' },
  {
    kind: 'quota.nearly-full',
    label: 'My storage nearly full (90% of my quota; administrators: a volume’s quota or a disk)',
  },
  { kind: 'upload.failed', label: 'An upload of mine that could not be placed in its folder' },
  { kind: 'volume.missing', label: 'A volume’s disk gone missing, and back (administrators)' },
  { kind: 'job.failed', label: 'A background job failing again and again, and working again (administrators)' },
  {
    kind: 'volume.read-only',
    label: 'A read-write volume that cannot be written, and writable again (administrators)',
  },
];

const KIND_LABEL: Record<string, string> = {
  webhook: 'Webhook',
  ntfy: 'ntfy',
  email: 'E-mail',
  push: 'Browser and phone notifications',
};

type Mode = 'now' | 'hourly' | 'daily';
const MODES: { mode: Mode; label: string }[] = [
  { mode: 'now', label: 'At once' },
  { mode: 'hourly', label: 'Hourly digest' },
  { mode: 'daily', label: 'Daily digest' },
];
const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
const zones: string[] = (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.(
  'timeZone',
) ?? [browserZone];

/** Quiet hours, the daily digest's time, and at once or a digest per destination (webhooks: always at once). */
function When({
  prefs,
  setPrefs,
  destinations,
}: {
  prefs: Prefs;
  setPrefs: (p: Prefs) => void;
  destinations: Choosable[];
}) {
  const chosen = destinations.filter((d) => d.kind !== 'webhook' && prefs.destinations.includes(d.id));
  const quiet = prefs.quietHours;
  return (
    <fieldset class="stack">
      <legend>When</legend>
      <label class="check">
        <input
          type="checkbox"
          checked={quiet !== null}
          onChange={(e) =>
            setPrefs({ ...prefs, quietHours: e.currentTarget.checked ? { from: '22:00', to: '07:00' } : null })
          }
        />{' '}
        Quiet hours
      </label>
      {quiet && (
        <div class="row notify-times">
          <label>
            From{' '}
            <input
              type="time"
              value={quiet.from}
              required
              onChange={(e) => setPrefs({ ...prefs, quietHours: { ...quiet, from: e.currentTarget.value } })}
            />
          </label>
          <label>
            to{' '}
            <input
              type="time"
              value={quiet.to}
              required
              onChange={(e) => setPrefs({ ...prefs, quietHours: { ...quiet, to: e.currentTarget.value } })}
            />
          </label>
        </div>
      )}
      {quiet && (
        <p class="muted small">
          Notifications in these hours wait and arrive together as one message when they end; the bell shows them at
          once.
        </p>
      )}
      {chosen.map((d) => (
        <label key={d.id} class="notify-mode">
          <span dir="auto">{d.name}</span>{' '}
          <select
            value={prefs.delivery.destinations[d.id] ?? 'now'}
            onChange={(e) =>
              setPrefs({
                ...prefs,
                delivery: {
                  ...prefs.delivery,
                  destinations: { ...prefs.delivery.destinations, [d.id]: e.currentTarget.value as Mode },
                },
              })
            }
          >
            {MODES.map((m) => (
              <option key={m.mode} value={m.mode}>
                {m.label}
              </option>
            ))}
          </select>
        </label>
      ))}
      {chosen.some((d) => prefs.delivery.destinations[d.id] === 'daily') && (
        <label>
          Daily digest at{' '}
          <input
            type="time"
            value={prefs.dailyAt}
            required
            onChange={(e) => setPrefs({ ...prefs, dailyAt: e.currentTarget.value })}
          />
        </label>
      )}
      <label>
        Time zone{' '}
        <select value={prefs.timeZone} onChange={(e) => setPrefs({ ...prefs, timeZone: e.currentTarget.value })}>
          {[...new Set([prefs.timeZone, ...zones])].map((z) => (
            <option key={z} value={z}>
              {z}
            </option>
          ))}
        </select>
      </label>
      {prefs.timeZone !== browserZone && (
        <div>
          <button type="button" onClick={() => setPrefs({ ...prefs, timeZone: browserZone })}>
            Use this device’s time zone ({browserZone})
          </button>
        </div>
      )}
    </fieldset>
  );
}

export function Notifications() {
  const [prefs, setPrefs] = useState<Prefs | null>(null);
  const [destinations, setDestinations] = useState<Choosable[] | null>(null);
  const [picking, setPicking] = useState(false);
  const [loadError, setLoadError] = useState<unknown>(null);
  const { busy, error, run } = useSubmit();
  useEffect(() => {
    Promise.all([api('GET /api/notify/prefs'), api('GET /api/notify/destinations')]).then(([p, d]) => {
      setPrefs(p.prefs);
      setDestinations(d.destinations);
    }, setLoadError);
  }, []);
  if (!prefs || !destinations)
    return (
      <div class="stack">
        <ErrorNote error={loadError} />
      </div>
    );
  const toggle = <T,>(list: T[], item: T, on: boolean) => (on ? [...list, item] : list.filter((x) => x !== item));
  // E-mail per kind: on unless turned off here or by a message's unsubscribe link.
  const byEmail = destinations.some((d) => d.kind === 'email' && prefs.destinations.includes(d.id));
  const save = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      const a = await api('PUT /api/notify/prefs', { body: prefs });
      setPrefs(a.prefs);
      toast('Notification choices saved');
    });
  };
  return (
    <form class="stack notify-prefs" style={{ maxWidth: '640px' }} onSubmit={save} aria-label="Notifications">
      <fieldset class="stack">
        <legend>Where</legend>
        {destinations.length === 0 && (
          <p class="muted small">
            No destination yet: an administrator adds them (a webhook, an ntfy topic, e-mail) in Administration →
            Notifications.
          </p>
        )}
        {destinations.map((d) => (
          <label class="check" key={d.id}>
            <input
              type="checkbox"
              checked={prefs.destinations.includes(d.id)}
              onChange={(e) =>
                setPrefs({ ...prefs, destinations: toggle(prefs.destinations, d.id, e.currentTarget.checked) })
              }
            />{' '}
            <span dir="auto">{d.name}</span> <span class="muted small">({KIND_LABEL[d.kind] ?? d.kind})</span>
          </label>
        ))}
        {destinations.some((d) => d.kind === 'push' && prefs.destinations.includes(d.id)) && <ThisBrowser />}
      </fieldset>
      <When prefs={prefs} setPrefs={setPrefs} destinations={destinations} />
      <fieldset class="stack">
        <legend>What</legend>
        {KINDS.map((k) => (
          <div key={k.kind}>
            <label class="check">
              <input
                type="checkbox"
                checked={prefs.kinds.includes(k.kind)}
                onChange={(e) => setPrefs({ ...prefs, kinds: toggle(prefs.kinds, k.kind, e.currentTarget.checked) })}
              />{' '}
              {k.label}
            </label>
            {byEmail && prefs.kinds.includes(k.kind) && (
              <label class="check small notify-by-email">
                <input
                  type="checkbox"
                  checked={!prefs.emailOff.includes(k.kind)}
                  onChange={(e) =>
                    setPrefs({ ...prefs, emailOff: toggle(prefs.emailOff, k.kind, !e.currentTarget.checked) })
                  }
                />{' '}
                also by e-mail
                {prefs.emailOff.includes(k.kind) && <span class="muted"> (turned off)</span>}
              </label>
            )}
          </div>
        ))}
      </fieldset>
      <fieldset class="stack">
        <legend>Folders I watch</legend>
        <p class="muted small">
          Changes others make inside these folders (and the folders within them) are sent to you; your own are not.
        </p>
        <ul class="results" aria-label="Watched folders">
          {prefs.folders.map((f) => (
            <li key={f}>
              <Icon name="folder" />
              <span class="grow where" dir="auto">
                {f}
              </span>
              <button
                type="button"
                class="small"
                aria-label={`Stop watching ${f}`}
                onClick={() => setPrefs({ ...prefs, folders: prefs.folders.filter((x) => x !== f) })}
              >
                Stop watching
              </button>
            </li>
          ))}
          {!prefs.folders.length && <li class="muted">No folder watched.</li>}
        </ul>
        <div>
          <button type="button" onClick={() => setPicking(true)}>
            Watch a folder…
          </button>
        </div>
      </fieldset>
      <ErrorNote error={error} />
      <div>
        <button class="primary" disabled={busy}>
          Save
        </button>
      </div>
      {picking && (
        <FolderPicker
          title="Watch a folder"
          start=""
          confirm="Watch this folder"
          onPick={(p) => {
            if (!p) throw new Error('Choose a folder inside a volume.');
            if (!prefs.folders.includes(p)) setPrefs({ ...prefs, folders: [...prefs.folders, p] });
          }}
          onClose={() => setPicking(false)}
        />
      )}
    </form>
  );
}
