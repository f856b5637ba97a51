// "Shared by me" and "Shared with me": every link with what it gives and for how long, what a
// file request has received; open, copy link, edit, delete. A link made at localhost without
// PUBLIC_URL is shown and copied at this computer's network address, as the share dialog gives
// it (a link naming localhost opens on no other device), and the page says why.
import { useEffect, useState } from 'preact/hooks';
import { parentOf } from '../api/client.ts';
import { confirmDialog } from '../components/Dialog.tsx';
import { ErrorNote, Icon, Spinner } from '../components/common.tsx';
import { filesUrl, navigate } from '../state/router.ts';
import { toast, toastError } from '../state/toasts.ts';
import { formatBytes, formatDate } from '../util.ts';
import { deleteShare, listMyShares, listSharedWithMe, type Share } from './api.ts';
import { copyText, linkElsewhere, openShareDialog } from './ShareDialog.tsx';
import './shares.css';

const FLAG_NAMES: [keyof Share, string][] = [
  ['allowDownload', 'download'],
  ['allowUpload', 'upload'],
  ['allowCreateFolder', 'new folders'],
  ['allowCreateFile', 'new files'],
  ['allowRename', 'rename'],
  ['allowDelete', 'delete'],
  ['allowEdit', 'edit'],
  ['allowLocation', 'photo locations'],
  ['allowTranscode', 'video conversion'],
];

function flagsOf(s: Share): string {
  if (s.fileRequest) return 'upload only';
  const on = FLAG_NAMES.filter(([k]) => s[k]).map(([, n]) => n);
  return on.length ? `view, ${on.join(', ')}` : 'view only';
}

function expiryOf(s: Share): string {
  if (!s.expiresAt) return 'never';
  return Date.parse(s.expiresAt) < Date.now() ? `expired ${formatDate(s.expiresAt)}` : formatDate(s.expiresAt);
}

/** The link to give others: at this computer's network address when it names localhost. */
const linkToSend = (s: Share) => linkElsewhere(s.shareUrl)?.lan[0] ?? s.shareUrl;

/** Why the links read as they do, when they were made at a name only this computer knows. */
function ElsewhereNote({ shares }: { shares: Share[] }) {
  const elsewhere = shares.length ? linkElsewhere(shares[0]!.shareUrl) : null;
  if (!elsewhere) return null;
  if (elsewhere.lan[0])
    return (
      <p class="muted small share-elsewhere-note" role="note">
        You opened Burrow at <code>{elsewhere.local}</code>, a name only this computer understands, so these links are
        shown and copied at the computer's network address (<code>{new URL(elsewhere.lan[0]).host}</code>): they open on
        phones and computers on the same network. For links that work anywhere, set <code>PUBLIC_URL</code> to Burrow's
        public address.
      </p>
    );
  return (
    <p class="warning small share-elsewhere-note" role="note">
      These links name <code>{elsewhere.local}</code>, so they open only on this computer:{' '}
      {elsewhere.reachable
        ? 'this computer has no network address right now (is it connected?).'
        : 'Burrow is set to accept connections from this computer only.'}{' '}
      To share with other devices, start Burrow with <code>HOST=0.0.0.0</code>, or set <code>PUBLIC_URL</code> to its
      public address.
    </p>
  );
}

function ShareRow({ s, mine, onChanged }: { s: Share; mine: boolean; onChanged: () => void }) {
  const name = s.sourceName ?? s.sourcePath?.split('/').pop() ?? '';
  const link = linkToSend(s);
  const openItem = () => {
    if (!mine || !s.sourcePath) {
      window.open(s.shareUrl, '_blank', 'noopener');
      return;
    }
    navigate(filesUrl(s.isDirectory ? s.sourcePath : parentOf(s.sourcePath)));
  };
  const remove = async () => {
    const ok = await confirmDialog({
      title: 'Delete this link?',
      body: (
        <p>
          People who have “{s.label || name}” can no longer open it. The {s.isDirectory ? 'folder' : 'file'} itself
          stays.
        </p>
      ),
      confirm: 'Delete link',
      danger: true,
    });
    if (!ok) return;
    try {
      await deleteShare(s.id);
      toast('Link deleted');
      onChanged();
    } catch (err) {
      toastError(err, 'Could not delete the link');
    }
  };
  const fr = s.fileRequest;
  return (
    <li class="share-row" data-share={s.id}>
      <div class="share-main">
        <Icon name={s.isDirectory ? 'folder' : 'file'} size={22} />
        <div>
          <div class="share-title" dir="auto">
            {s.label || name}
          </div>
          <div class="muted small" dir="auto">
            {mine ? s.sourcePath : `${name}${s.ownerName ? ` · from ${s.ownerName}` : ''}`}
          </div>
          {mine && (
            <a class="share-url small" href={link} target="_blank" rel="noopener noreferrer">
              {link}
            </a>
          )}
        </div>
      </div>
      <dl class="share-facts small">
        <div>
          <dt>Type</dt>
          <dd>
            {fr
              ? 'File request'
              : s.sharingType === 'users'
                ? `Accounts (${s.permittedUserIds?.length ?? '—'})`
                : 'Anyone with the link'}
            {s.hasPassword ? ' · password' : ''}
          </dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd>{expiryOf(s)}</dd>
        </div>
        <div>
          <dt>Allows</dt>
          <dd>{flagsOf(s)}</dd>
        </div>
        {fr ? (
          <div>
            <dt>Received</dt>
            <dd class="received">
              {fr.receivedFiles} file{fr.receivedFiles === 1 ? '' : 's'}, {formatBytes(fr.receivedBytes)}
              {fr.maxFiles || fr.maxBytes
                ? ` (limit ${[fr.maxFiles ? `${fr.maxFiles} files` : '', fr.maxBytes ? formatBytes(fr.maxBytes) : ''].filter(Boolean).join(', ')})`
                : ''}
            </dd>
          </div>
        ) : (
          mine && (
            <div>
              <dt>Opened</dt>
              <dd>
                {s.accessCount}× ·{' '}
                {s.maxDownloads === null
                  ? `${s.downloadCount} download${s.downloadCount === 1 ? '' : 's'}`
                  : `${s.downloadCount} of ${s.maxDownloads} download${s.maxDownloads === 1 ? '' : 's'}${s.maxDownloads === 1 ? ' (one-time)' : ''}`}
                {s.maxDownloads !== null && s.downloadCount >= s.maxDownloads && (
                  <strong class="share-spent"> · used up: the link no longer opens</strong>
                )}
              </dd>
            </div>
          )
        )}
      </dl>
      <div class="actions share-actions">
        <button type="button" class="small" onClick={openItem}>
          Open
        </button>
        <button type="button" class="small" onClick={() => void copyText(link)}>
          Copy link
        </button>
        {mine && (
          <button
            type="button"
            class="small"
            onClick={() =>
              openShareDialog({ path: s.sourcePath ?? '', name, isDirectory: s.isDirectory }, s, onChanged)
            }
          >
            Edit
          </button>
        )}
        {mine && (
          <button type="button" class="small danger" onClick={() => void remove()}>
            Delete
          </button>
        )}
      </div>
    </li>
  );
}

export default function SharesView({ which }: { which: 'mine' | 'withMe' }) {
  const [shares, setShares] = useState<Share[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = () => {
    setError(null);
    (which === 'mine' ? listMyShares() : listSharedWithMe()).then(setShares, setError);
  };
  useEffect(() => {
    setShares(null);
    load();
  }, [which]);
  const title = which === 'mine' ? 'Shared by me' : 'Shared with me';
  return (
    <section class="page shares-page" aria-label={title}>
      <h1>{title}</h1>
      <ErrorNote error={error}>
        <button type="button" onClick={load}>
          Try again
        </button>
      </ErrorNote>
      {!shares && !error && (
        <div class="center">
          <Spinner />
        </div>
      )}
      {shares && !shares.length && (
        <p class="muted">
          {which === 'mine'
            ? 'You have not shared anything yet. Use “Share…” on a file or folder.'
            : 'Nobody has shared anything with your account yet.'}
        </p>
      )}
      {shares && which === 'mine' && <ElsewhereNote shares={shares} />}
      {shares && shares.length > 0 && (
        <ul class="share-list">
          {shares.map((s) => (
            <ShareRow key={s.id} s={s} mine={which === 'mine'} onChanged={load} />
          ))}
        </ul>
      )}
    </section>
  );
}
