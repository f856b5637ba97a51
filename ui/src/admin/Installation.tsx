// Installation settings (administrator): folder sizes, the search index's state, the terminal and the activity log — each
// applied at once, without a restart, with what it costs said beside it (a setting fixed by an
// environment variable says which) — then thumbnails and branding.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import { ErrorNote } from '../components/common.tsx';
import type { IndexState, Settings, SettingsChange } from '../api/types.ts';
import { navigate } from '../state/router.ts';
import { features, reloadFeatures } from '../state/session.ts';
import { toast } from '../state/toasts.ts';
import './admin.css';

type FolderSizeMode = NonNullable<Settings['folderSizes']>['mode'];

/** "Set by FOLDER_SIZE_MODE": the variable wins over this screen until it is removed. */
function SetBy({ variable }: { variable: string }) {
  return (
    <p class="notice setting-fixed" role="note">
      Set by <code>{variable}</code> in Burrow's environment. Change or remove the variable there and restart Burrow to
      change it here.
    </p>
  );
}

type Save = (body: SettingsChange) => Promise<boolean>;

function FolderSizes({ s, save }: { s: Settings; save: Save }) {
  const current = s.folderSizes ?? { mode: 'off' as FolderSizeMode, setBy: null };
  const [mode, setMode] = useState<FolderSizeMode>(current.mode);
  useEffect(() => setMode(current.mode), [current.mode]);
  const fixed = current.setBy !== null;
  // With the search index on, the volumes are walked anyway: sizes cost next to nothing more.
  const searchIndexed = features.value.search?.index === true;
  const options: { value: FolderSizeMode; label: string }[] = [
    { value: 'off', label: 'Off' },
    { value: 'full', label: 'Total size of each folder, with everything inside it' },
    { value: 'shallow', label: 'Size of the files directly in each folder' },
  ];
  return (
    <section class="stack setting" aria-labelledby="folder-sizes-title">
      <h2 id="folder-sizes-title">Folder sizes</h2>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void save({ folderSizes: { mode } });
        }}
      >
        <fieldset class="choices" disabled={fixed}>
          <legend>Show in the Size column</legend>
          {options.map((o) => (
            <label key={o.value} class="check">
              <input
                type="radio"
                name="folder-size-mode"
                value={o.value}
                checked={mode === o.value}
                onChange={() => setMode(o.value)}
              />
              {o.label}
            </label>
          ))}
        </fieldset>
        <p class="muted small cost">
          <strong>What it costs:</strong>{' '}
          {searchIndexed
            ? 'little more than now: the search index already reads every folder of every volume, and the sizes come from the same walk.'
            : 'Burrow reads every folder of every volume once, in the background — on a large disk that is minutes of processor time and disk reads, and a network drive is read more slowly on purpose.'}{' '}
          Afterwards the sizes follow every change made through Burrow and are re-checked now and then, always giving
          way to people using Burrow. The index lives in the cache folder and can be rebuilt at any time. Applied at
          once, no restart.
        </p>
        {fixed ? (
          <SetBy variable={current.setBy!} />
        ) : (
          <div>
            <button class="primary" disabled={mode === current.mode}>
              Save
            </button>
          </div>
        )}
      </form>
    </section>
  );
}

function TerminalSwitch({ s, save }: { s: Settings; save: Save }) {
  const current = s.terminal ?? { enabled: false, setBy: null };
  const [password, setPassword] = useState('');
  const fixed = current.setBy !== null;
  const t = features.value.terminal;
  return (
    <section class="stack setting" aria-labelledby="terminal-title">
      <h2 id="terminal-title">Terminal</h2>
      <p>
        The terminal is <strong>{current.enabled ? 'on' : 'off'}</strong>.{' '}
        {current.enabled && t?.available !== false && (
          <a
            href="/admin/terminal"
            onClick={(e) => {
              e.preventDefault();
              navigate('/admin/terminal');
            }}
          >
            Open the terminal
          </a>
        )}
      </p>
      <p class="warning small cost" role="note">
        <strong>The risk:</strong> the terminal is a shell on this computer in the browser, running as the account
        Burrow runs under. Every administrator — and anyone who gets hold of an administrator's signed-in browser — can
        then read, change and delete whatever that account can, outside the volumes too, and run any program. Switch it
        on only if every administrator may do that; give administrator accounts a second factor. Switched off, open
        terminals end at once.
      </p>
      {current.enabled && t && !t.available && t.reason && <p class="error-note">{t.reason}</p>}
      {fixed ? (
        <SetBy variable={current.setBy!} />
      ) : current.enabled ? (
        <div>
          <button type="button" onClick={() => void save({ terminal: { enabled: false } })}>
            Switch the terminal off
          </button>
        </div>
      ) : (
        <form
          class="stack"
          onSubmit={async (e) => {
            e.preventDefault();
            if (await save({ terminal: { enabled: true, ...(password ? { password } : {}) } })) setPassword('');
          }}
        >
          <label>
            Your password, to switch it on
            <input
              type="password"
              name="terminal-password"
              autocomplete="current-password"
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          </label>
          <div>
            <button class="danger">Switch the terminal on</button>
          </div>
        </form>
      )}
    </section>
  );
}

const KIND_NAMES: Record<IndexState['documents'][number]['kind'], string> = {
  pdf: 'PDF',
  epub: 'EPUB',
  rtf: 'RTF',
  html: 'HTML',
  office: 'Office',
};
const STATUS_NAMES: Record<IndexState['documents'][number]['status'], string> = {
  indexed: 'words searchable',
  empty: 'no text',
  'no-text-layer': 'no text layer (scanned pictures)',
  encrypted: 'needs a password',
  broken: 'damaged',
  'too-large': 'too large',
  'timed-out': 'took too long',
  deferred: 'waiting for the next walk',
};

/** The search index: what it covers, and what became of the documents it reads (skipped ones and why). */
function SearchIndex() {
  const [state, setState] = useState<IndexState | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api('GET /api/admin/index').then(setState, setError);
  }, []);
  if (!state) return <ErrorNote error={error} />;
  const kinds = [...new Set(state.documents.map((d) => d.kind))];
  const walking = state.roots.filter((r) => r.state !== 'ready').length;
  return (
    <section class="stack setting" aria-labelledby="search-index-title">
      <h2 id="search-index-title">Search index</h2>
      {!state.enabled ? (
        <p>
          Off: <code>SEARCH_INDEX_ENABLED</code> is false, so only names are searched, by walking the folders.
        </p>
      ) : (
        <>
          <p>
            {state.roots.length} indexed folder{state.roots.length === 1 ? '' : 's'}
            {walking ? `, ${walking} still being read` : ', all read'}. The words inside PDFs (their text layer), EPUB,
            RTF, HTML and office documents are read in the background, always giving way to people using Burrow; a
            document that cannot be read is skipped and listed below.
          </p>
          {kinds.length > 0 && (
            <div class="table-wrap">
              <table class="data index-documents">
                <caption class="muted small">Documents read for search</caption>
                <thead>
                  <tr>
                    <th scope="col">Kind</th>
                    <th scope="col">What became of them</th>
                  </tr>
                </thead>
                <tbody>
                  {kinds.map((k) => (
                    <tr key={k}>
                      <th scope="row">{KIND_NAMES[k]}</th>
                      <td>
                        {state.documents
                          .filter((d) => d.kind === k)
                          .map((d) => `${d.count} ${STATUS_NAMES[d.status]}`)
                          .join(' · ')}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {state.notIndexed.length > 0 && (
            <details>
              <summary>Skipped documents ({state.notIndexed.length})</summary>
              <ul class="index-skipped">
                {state.notIndexed.map((d) => (
                  <li key={`${d.folder}/${d.name}`}>
                    <span dir="auto">{d.name}</span> — {STATUS_NAMES[d.status]}
                    <div class="muted small" dir="auto">
                      {d.folder}
                    </div>
                  </li>
                ))}
              </ul>
            </details>
          )}
        </>
      )}
    </section>
  );
}

export function Installation() {
  const [s, setS] = useState<Settings | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api('GET /api/settings').then(setS, setError);
  }, []);
  /** Saves one section; the terminal's password travels beside its switch. Resolves true when saved. */
  const save = async (body: SettingsChange): Promise<boolean> => {
    setError(null);
    try {
      const a = await api('PATCH /api/settings', { body }, { allow401: true });
      setS({ ...s, ...a });
      if (body.folderSizes || body.terminal) await reloadFeatures();
      toast('Settings saved');
      return true;
    } catch (err) {
      setError(err);
      return false;
    }
  };
  if (!s) return <ErrorNote error={error} />;
  const act = s.activity ?? { enabled: false, retentionDays: 90 };
  const th = s.thumbnails ?? { enabled: true, size: 256, quality: 80, concurrency: 4 };
  return (
    <div class="stack installation">
      <ErrorNote error={error} />
      <FolderSizes s={s} save={save} />
      <SearchIndex />
      <TerminalSwitch s={s} save={save} />
      <section class="stack setting" aria-labelledby="activity-title">
        <h2 id="activity-title">Activity log</h2>
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
            <input type="checkbox" name="enabled" defaultChecked={act.enabled} /> Record sign-ins, token use, file
            changes, administration and settings changes
          </label>
          <label>
            Keep rows for (days)
            <input type="number" name="retentionDays" min={1} max={3650} defaultValue={String(act.retentionDays)} />
          </label>
          <p class="muted small cost">
            <strong>What it costs:</strong> a row of a few hundred bytes in Burrow's database for each event; rows older
            than the days above are removed every hour. It records who did what and from which address. Applied at once.
          </p>
          <div>
            <button class="primary">Save</button>
          </div>
        </form>
      </section>
      <section class="stack setting" aria-labelledby="thumbnails-title">
        <h2 id="thumbnails-title">Thumbnails</h2>
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
      </section>
      <section class="stack setting" aria-labelledby="branding-title">
        <h2 id="branding-title">Branding</h2>
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
      </section>
    </div>
  );
}
