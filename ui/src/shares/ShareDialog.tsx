// The share dialog: who (anyone with the link, or named accounts), password, expiry, what the
// link allows (only the flags that mean something for a file or a folder), a file request
// (upload-only folder link with limits), label; then the link to copy and its QR code.
// The same form edits an existing share; links already made for the item are listed on top.
import { useEffect, useRef, useState } from 'preact/hooks';
import { Dialog, showDialog } from '../components/Dialog.tsx';
import { ErrorNote, Spinner } from '../components/common.tsx';
import { useSubmit } from '../components/useSubmit.ts';
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
];

/** `2027-01-15T10:00` (local) for <input type=datetime-local>, and back to ISO. */
const toLocalInput = (iso: string | null) => {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
};
const fromLocalInput = (v: string) => (v ? new Date(v).toISOString() : null);

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

export function LinkBox({ url }: { url: string }) {
  const input = useRef<HTMLInputElement>(null);
  const [qr, setQr] = useState(false);
  return (
    <div class="share-link stack">
      <div class="share-link-row">
        <input ref={input} readOnly value={url} aria-label="Link" onFocus={(e) => e.currentTarget.select()} />
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
          <ul class="share-existing">
            {others.map((s) => (
              <li key={s.id}>
                <span>
                  <strong dir="auto">{s.label || s.shareToken.slice(0, 8)}</strong>{' '}
                  <span class="muted small">{describe(s)}</span>
                </span>
                <span class="actions">
                  <button type="button" class="small" onClick={() => void copyText(s.shareUrl)}>
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
            {mode.share.fileRequest
              ? 'People with this link can send files into the folder.'
              : 'Anyone this link is for can open it.'}{' '}
            <span class="muted small">{describe(mode.share)}</span>
          </p>
          <LinkBox url={mode.share.shareUrl} />
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
