// The share dialog: who (anyone with the link, or named accounts), password, expiry, what the
// link allows (only the flags that mean something for a file or a folder), a file request
// (upload-only folder link with limits), label; then the link to copy and its QR code.
// The same form edits an existing share; links already made for the item are listed on top.
// Opened at localhost without PUBLIC_URL, a link would name an address only this computer
// knows: the dialog gives it with this computer's network address instead, and says why.
import { useEffect, useRef, useState } from 'preact/hooks';
import { Dialog, showDialog } from '../components/Dialog.tsx';
import { ErrorNote, Spinner } from '../components/common.tsx';
import { useSubmit } from '../components/useSubmit.ts';
import { features } from '../state/session.ts';
import { toast } from '../state/toasts.ts';
import { formatDate } from '../util.ts';
import {
  createShare,
  listMyShares,
  shareableUsers,
  updateShare,
  type AllowKey,
  type Share,
  type ShareInput,
  type ShareableUser,
} from './api.ts';
import { QrCode } from './Qr.tsx';
import './shares.css';

export interface ShareTarget {
  path: string;
  name: string;
  isDirectory: boolean;
}

const FLAGS: { key: AllowKey; label: string; folderOnly?: boolean }[] = [
  { key: 'allowDownload', label: 'Download' },
  { key: 'allowUpload', label: 'Upload', folderOnly: true },
  { key: 'allowCreateFolder', label: 'Create folders', folderOnly: true },
  { key: 'allowCreateFile', label: 'Create files', folderOnly: true },
  { key: 'allowRename', label: 'Rename', folderOnly: true },
  { key: 'allowDelete', label: 'Delete (to your trash)', folderOnly: true },
  { key: 'allowEdit', label: 'Edit text files' },
  { key: 'allowLocation', label: 'Show where photos were taken' },
  { key: 'allowTranscode', label: 'Convert videos browsers cannot play (uses the server’s processor)' },
];

/** `2027-01-15T10:00` (local) for <input type=datetime-local>, and back to ISO. */
const toLocalInput = (iso: string | null) => {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
};
const fromLocalInput = (v: string) => (v ? new Date(v).toISOString() : null);

/** `localhost`, `*.localhost`, 127.x.x.x, [::1]: names only this computer knows. */
const isLoopbackHost = (host: string) => /^(localhost|.*\.localhost|127(\.\d{1,3}){3}|\[::1\])$/i.test(host);

/**
 * How a link is reached from other devices: when it names a loopback address (the page was
 * opened at localhost) and PUBLIC_URL is unset, the same link at each LAN address of this
 * computer; `lan` is empty when Burrow accepts no other device (`reachable` false).
 */
export function linkElsewhere(url: string): { local: string; lan: string[]; reachable: boolean } | null {
  const n = features.value.network;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (!n || n.publicUrl || !isLoopbackHost(parsed.hostname)) return null;
  const rest = parsed.pathname + parsed.search + parsed.hash;
  return { local: parsed.hostname, lan: n.lanOrigins.map((o) => o + rest), reachable: n.reachable };
}

export async function copyText(text: string, input?: HTMLInputElement | null): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Plain http on a LAN address is not a secure context: no Clipboard API there.
    if (input) {
      input.select();
      document.execCommand('copy');
    }
  }
  toast('Link copied');
}

export function LinkBox({ url, label = 'Link' }: { url: string; label?: string }) {
  const input = useRef<HTMLInputElement>(null);
  const [qr, setQr] = useState(false);
  return (
    <div class="share-link stack">
      <div class="share-link-row">
        <input ref={input} readOnly value={url} aria-label={label} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" class="primary" onClick={() => void copyText(url, input.current)}>
          Copy link
        </button>
        <button type="button" aria-pressed={qr} onClick={() => setQr(!qr)}>
          QR code
        </button>
      </div>
      {qr && <QrCode text={url} />}
    </div>
  );
}

function UserPicker({ selected, onChange }: { selected: string[]; onChange: (ids: string[]) => void }) {
  const [users, setUsers] = useState<ShareableUser[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [filter, setFilter] = useState('');
  useEffect(() => {
    shareableUsers().then(setUsers, setError);
  }, []);
  if (error) return <ErrorNote error={error} />;
  if (!users) return <Spinner />;
  if (!users.length) return <p class="muted">There are no other accounts to share with.</p>;
  const f = filter.trim().toLowerCase();
  const shown = users.filter(
    (u) => !f || [u.username, u.displayName, u.email].some((s) => s?.toLowerCase().includes(f)),
  );
  return (
    <fieldset class="share-users">
      <legend>Accounts</legend>
      {users.length > 6 && (
        <input
          type="search"
          placeholder="Filter accounts"
          aria-label="Filter accounts"
          value={filter}
          onInput={(e) => setFilter(e.currentTarget.value)}
        />
      )}
      <ul>
        {shown.map((u) => (
          <li key={u.id}>
            <label class="check">
              <input
                type="checkbox"
                checked={selected.includes(u.id)}
                onChange={(e) =>
                  onChange(e.currentTarget.checked ? [...selected, u.id] : selected.filter((id) => id !== u.id))
                }
              />
              <span dir="auto">{u.displayName || u.username}</span>
              {u.email && <span class="muted small">{u.email}</span>}
            </label>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}

function ShareForm({
  target,
  existing,
  onSaved,
  onCancel,
}: {
  target: ShareTarget;
  existing?: Share;
  onSaved: (s: Share) => void;
  onCancel: () => void;
}) {
  const [sharingType, setSharingType] = useState<'anyone' | 'users'>(existing?.sharingType ?? 'anyone');
  const [userIds, setUserIds] = useState<string[]>(existing?.permittedUserIds ?? []);
  const [usePassword, setUsePassword] = useState(existing?.hasPassword ?? false);
  const [password, setPassword] = useState('');
  const [expires, setExpires] = useState(toLocalInput(existing?.expiresAt ?? null));
  const [label, setLabel] = useState(existing?.label ?? '');
  const [maxDownloads, setMaxDownloads] = useState(existing?.maxDownloads ? String(existing.maxDownloads) : '');
  const [request, setRequest] = useState(Boolean(existing?.fileRequest));
  const [maxFiles, setMaxFiles] = useState(
    existing?.fileRequest?.maxFiles ? String(existing.fileRequest.maxFiles) : '',
  );
  const [maxMb, setMaxMb] = useState(
    existing?.fileRequest?.maxBytes ? String(Math.round(existing.fileRequest.maxBytes / 1048576)) : '',
  );
  const [flags, setFlags] = useState<Record<AllowKey, boolean>>(
    () =>
      Object.fromEntries(FLAGS.map((f) => [f.key, existing ? existing[f.key] : f.key === 'allowDownload'])) as Record<
        AllowKey,
        boolean
      >,
  );
  const { busy, error, setError, run } = useSubmit();

  const submit = (e: Event) => {
    e.preventDefault();
    if (sharingType === 'users' && !userIds.length) {
      setError(new Error('Pick at least one account.'));
      return;
    }
    if (usePassword && !password && !existing?.hasPassword) {
      setError(new Error('Type the password, or untick “Ask for a password”.'));
      return;
    }
    const input: ShareInput = { sharingType, label: label.trim() || null, expiresAt: fromLocalInput(expires) };
    if (sharingType === 'users') input.userIds = userIds;
    if (usePassword && password) input.password = password;
    else if (!usePassword && existing?.hasPassword) input.password = null;
    if (target.isDirectory && request) {
      input.fileRequest = {
        maxFiles: maxFiles ? Number(maxFiles) : null,
        maxBytes: maxMb ? Math.round(Number(maxMb) * 1048576) : null,
      };
    } else {
      if (existing?.fileRequest) input.fileRequest = null;
      input.maxDownloads = maxDownloads ? Number(maxDownloads) : null;
      for (const f of FLAGS) if (target.isDirectory || !f.folderOnly) input[f.key] = flags[f.key];
    }
    void run(async () => {
      const saved = existing ? await updateShare(existing.id, input) : await createShare(target.path, input);
      toast(existing ? 'Share updated' : 'Link created');
      onSaved(saved);
    });
  };

  return (
    <form class="stack share-form" onSubmit={submit}>
      <fieldset class="share-who">
        <legend>Who can open it</legend>
        <label class="check">
          <input type="radio" name="who" checked={sharingType === 'anyone'} onChange={() => setSharingType('anyone')} />{' '}
          Anyone with the link
        </label>
        <label class="check">
          <input type="radio" name="who" checked={sharingType === 'users'} onChange={() => setSharingType('users')} />{' '}
          Only these accounts (signed in)
        </label>
      </fieldset>
      {sharingType === 'users' && <UserPicker selected={userIds} onChange={setUserIds} />}
      {target.isDirectory && (
        <label class="check">
          <input type="checkbox" checked={request} onChange={(e) => setRequest(e.currentTarget.checked)} /> File
          request: people can only send files here (they see no listing)
        </label>
      )}
      {request && target.isDirectory ? (
        <div class="share-grid">
          <label>
            At most this many files
            <input
              type="number"
              min={1}
              inputMode="numeric"
              placeholder="No limit"
              value={maxFiles}
              onInput={(e) => setMaxFiles(e.currentTarget.value)}
            />
          </label>
          <label>
            At most this many MB in all
            <input
              type="number"
              min={1}
              inputMode="numeric"
              placeholder="No limit"
              value={maxMb}
              onInput={(e) => setMaxMb(e.currentTarget.value)}
            />
          </label>
        </div>
      ) : (
        <fieldset class="share-flags">
          <legend>People with the link may</legend>
          <label class="check">
            <input type="checkbox" checked disabled /> View{target.isDirectory ? ' and browse' : ''}
          </label>
          {FLAGS.filter((f) => target.isDirectory || !f.folderOnly).map((f) => (
            <label key={f.key} class="check">
              <input
                type="checkbox"
                name={f.key}
                checked={flags[f.key]}
                onChange={(e) => setFlags({ ...flags, [f.key]: e.currentTarget.checked })}
              />{' '}
              {f.label}
            </label>
          ))}
        </fieldset>
      )}
      {!(request && target.isDirectory) && (
        <div class="share-grid">
          <label>
            Stops after this many downloads
            <input
              type="number"
              name="maxDownloads"
              min={1}
              max={1000000}
              inputMode="numeric"
              placeholder="No limit"
              value={maxDownloads}
              onInput={(e) => setMaxDownloads(e.currentTarget.value)}
            />
            <small class="muted">
              Every download, zip, view or large preview counts one
              {existing ? ` (${existing.downloadCount} so far)` : ''}; then the link stops working.
            </small>
          </label>
          <label class="check">
            <input
              type="checkbox"
              name="oneTime"
              checked={maxDownloads === '1'}
              onChange={(e) => setMaxDownloads(e.currentTarget.checked ? '1' : '')}
            />{' '}
            One-time link
          </label>
        </div>
      )}
      <label class="check">
        <input type="checkbox" checked={usePassword} onChange={(e) => setUsePassword(e.currentTarget.checked)} /> Ask
        for a password
      </label>
      {usePassword && (
        <label>
          Password
          <input
            type="password"
            autocomplete="new-password"
            value={password}
            placeholder={existing?.hasPassword ? 'Unchanged' : ''}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
      )}
      <div class="share-grid">
        <label>
          Expires
          <input type="datetime-local" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
        </label>
        <label>
          Label
          <input
            value={label}
            maxLength={200}
            placeholder="For your list"
            onInput={(e) => setLabel(e.currentTarget.value)}
          />
        </label>
      </div>
      <ErrorNote error={error} />
      <div class="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button class="primary" disabled={busy}>
          {existing ? 'Save' : 'Create link'}
        </button>
      </div>
    </form>
  );
}

/** Who can open a link, in a sentence: whom it is for, and what else they need. */
export function whoCanOpen(s: Share): string {
  if (s.fileRequest) return 'People with this link can send files into the folder; they see nothing in it.';
  const until = s.expiresAt ? `, until ${formatDate(s.expiresAt)}` : '';
  if (s.sharingType === 'users')
    return `Only the accounts you chose can open it, after signing in${s.hasPassword ? ', and with the password' : ''}${until}.`;
  return `Anyone who has this link can open it${s.hasPassword ? ' with the password' : ''}${until}.`;
}

/**
 * The link to send, and why when it is not the address this page was opened at: a link naming
 * localhost opens only on this computer, so it is given at this computer's network address.
 */
function SharedLink({ url }: { url: string }) {
  const elsewhere = linkElsewhere(url);
  if (!elsewhere) return <LinkBox url={url} />;
  if (!elsewhere.reachable)
    return (
      <>
        <LinkBox url={url} />
        <p class="warning small" role="note">
          This link names <code>{elsewhere.local}</code>, which every device understands as “this device”: it opens only
          on this computer. Burrow is set to accept connections from this computer only, so no other device can open it.
          To share with other devices, start Burrow with <code>HOST=0.0.0.0</code>, or set <code>PUBLIC_URL</code> to
          its public address.
        </p>
      </>
    );
  if (!elsewhere.lan.length)
    return (
      <>
        <LinkBox url={url} />
        <p class="warning small" role="note">
          This link names <code>{elsewhere.local}</code>, so it opens only on this computer, and this computer has no
          network address right now (is it connected?). Set <code>PUBLIC_URL</code> to Burrow's public address for links
          that work anywhere.
        </p>
      </>
    );
  const [first, ...others] = elsewhere.lan;
  return (
    <div class="stack share-elsewhere">
      <p class="warning small" role="note">
        You opened Burrow at <code>{elsewhere.local}</code>, a name only this computer understands, so this link uses
        the computer's network address instead: it opens on phones and computers on the same network (Wi‑Fi or cable).
        For links that work anywhere, set <code>PUBLIC_URL</code> to Burrow's public address.
      </p>
      <LinkBox url={first!} label="Link for other devices" />
      {others.length > 0 && (
        <details>
          <summary class="small">Other addresses of this computer</summary>
          <div class="stack">
            {others.map((u) => (
              <LinkBox key={u} url={u} label={`Link at ${new URL(u).host}`} />
            ))}
          </div>
        </details>
      )}
      <details>
        <summary class="small">The link on this computer</summary>
        <LinkBox url={url} label="Link on this computer" />
      </details>
    </div>
  );
}

function describe(s: Share): string {
  const who =
    s.sharingType === 'users'
      ? `${s.permittedUserIds?.length ?? 0} account${s.permittedUserIds?.length === 1 ? '' : 's'}`
      : 'anyone';
  const parts = [s.fileRequest ? 'file request' : who];
  if (s.hasPassword) parts.push('password');
  if (s.expiresAt) parts.push(`until ${formatDate(s.expiresAt)}`);
  return parts.join(' · ');
}

function ShareDialog({
  target,
  existing,
  onClose,
  onChanged,
}: {
  target: ShareTarget;
  existing?: Share;
  onClose: () => void;
  onChanged?: () => void;
}) {
  const [mode, setMode] = useState<{ kind: 'form'; share?: Share } | { kind: 'done'; share: Share } | null>(
    existing ? { kind: 'form', share: existing } : null,
  );
  const [others, setOthers] = useState<Share[] | null>(null);
  useEffect(() => {
    if (existing) return;
    listMyShares().then(
      (all) => {
        const mine = all.filter((s) => s.sourcePath === target.path);
        setOthers(mine);
        if (!mine.length) setMode({ kind: 'form' });
      },
      () => {
        setOthers([]);
        setMode({ kind: 'form' });
      },
    );
  }, []);
  const saved = (s: Share) => {
    setMode({ kind: 'done', share: s });
    onChanged?.();
  };
  return (
    <Dialog title={`Share “${target.name}”`} onClose={onClose} wide>
      {!mode && !others && <Spinner />}
      {!mode && others && (
        <div class="stack">
          <p>Links already made for this {target.isDirectory ? 'folder' : 'file'}:</p>
          {others[0] && linkElsewhere(others[0].shareUrl)?.lan[0] && (
            <p class="muted small" role="note">
              You opened Burrow at {linkElsewhere(others[0].shareUrl)!.local}, a name only this computer understands:
              “Copy link” gives the link at this computer's network address (
              {new URL(linkElsewhere(others[0].shareUrl)!.lan[0]!).host}), which other devices on the network open.
            </p>
          )}
          <ul class="share-existing">
            {others.map((s) => (
              <li key={s.id}>
                <span>
                  <strong dir="auto">{s.label || s.shareToken.slice(0, 8)}</strong>{' '}
                  <span class="muted small">{describe(s)}</span>
                </span>
                <span class="actions">
                  <button
                    type="button"
                    class="small"
                    onClick={() => void copyText(linkElsewhere(s.shareUrl)?.lan[0] ?? s.shareUrl)}
                  >
                    Copy link
                  </button>
                  <button type="button" class="small" onClick={() => setMode({ kind: 'form', share: s })}>
                    Edit
                  </button>
                </span>
              </li>
            ))}
          </ul>
          <div class="actions">
            <button type="button" onClick={onClose}>
              Close
            </button>
            <button type="button" class="primary" onClick={() => setMode({ kind: 'form' })}>
              New link
            </button>
          </div>
        </div>
      )}
      {mode?.kind === 'form' && (
        <ShareForm
          target={target}
          existing={mode.share}
          onSaved={saved}
          onCancel={existing || !others?.length ? onClose : () => setMode(null)}
        />
      )}
      {mode?.kind === 'done' && (
        <div class="stack">
          <p>
            {whoCanOpen(mode.share)} <span class="muted small">{describe(mode.share)}</span>
          </p>
          <SharedLink url={mode.share.shareUrl} />
          <div class="actions">
            <button type="button" onClick={() => setMode({ kind: 'form', share: mode.share })}>
              Change settings
            </button>
            <button type="button" class="primary" onClick={onClose}>
              Done
            </button>
          </div>
        </div>
      )}
    </Dialog>
  );
}

/** Opens the share dialog for an item (new link), or for one existing share (edit). */
export function openShareDialog(target: ShareTarget, existing?: Share, onChanged?: () => void): void {
  showDialog((close) => <ShareDialog target={target} existing={existing} onClose={close} onChanged={onChanged} />);
}
