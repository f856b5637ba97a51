// The bell in the top bar: this account's recent events (those it chose in Settings →
// Notifications), the unread ones counted on the bell; opening the list marks them read.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import { hearInbox } from '../live/live.ts';
import type { ApiAnswer } from '../../../src/contract.ts';
import { formatDate } from '../util.ts';
import './bell.css';

type Inbox = ApiAnswer<'GET /api/notify/inbox'>;

const EVERY_MS = 60_000;

export function Bell() {
  const [inbox, setInbox] = useState<Inbox | null>(null);
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const load = () =>
    api('GET /api/notify/inbox').then(setInbox, () => {
      /* the bell stays as it was; the next look tries again */
    });
  useEffect(() => {
    void load();
    const unhear = hearInbox(
      ({ items, unread }) =>
        setInbox((i) => {
          const known = new Set(i?.items.map((it) => it.id));
          const fresh = items.filter((it) => !known.has(it.id));
          const all = [...fresh, ...(i?.items ?? [])].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
          // Read on another page: this one shows them read too.
          return { unread, items: unread === 0 ? all.map((it) => ({ ...it, read: true })) : all };
        }),
      () => void load(),
    );
    const timer = setInterval(() => void load(), EVERY_MS);
    // A push shown by the service worker: look again at once.
    const onMessage = () => void load();
    navigator.serviceWorker?.addEventListener('message', onMessage);
    return () => {
      unhear();
      clearInterval(timer);
      navigator.serviceWorker?.removeEventListener('message', onMessage);
    };
  }, []);
  useEffect(() => {
    if (!open) return;
    const away = (e: Event) => {
      if (box.current && !box.current.contains(e.target as Node)) setOpen(false);
    };
    const esc = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    document.addEventListener('pointerdown', away);
    document.addEventListener('keydown', esc);
    return () => {
      document.removeEventListener('pointerdown', away);
      document.removeEventListener('keydown', esc);
    };
  }, [open]);
  const unread = inbox?.unread ?? 0;
  const toggle = () => {
    const next = !open;
    setOpen(next);
    if (next && unread > 0)
      void api('POST /api/notify/inbox/read', { body: {} }).then(() =>
        setInbox((i) => (i ? { unread: 0, items: i.items.map((it) => ({ ...it, read: true })) } : i)),
      );
  };
  return (
    <div class="bell" ref={box}>
      <button
        type="button"
        class="icon-button bell-button"
        aria-label={unread ? `Notifications, ${unread} unread` : 'Notifications'}
        aria-expanded={open}
        onClick={toggle}
      >
        <svg
          width="20"
          height="20"
          viewBox="0 0 24 24"
          aria-hidden="true"
          fill="none"
          stroke="currentColor"
          stroke-width="2"
        >
          <path d="M18 8a6 6 0 0 0-12 0c0 7-3 9-3 9h18s-3-2-3-9" />
          <path d="M13.7 21a2 2 0 0 1-3.4 0" />
        </svg>
        {unread > 0 && <span class="bell-count">{unread > 99 ? '99+' : unread}</span>}
      </button>
      {open && (
        <div class="bell-list" role="dialog" aria-label="Notifications">
          {!inbox?.items.length && (
            <p class="muted small">Nothing yet. Choose what you are told of in Settings → Notifications.</p>
          )}
          <ul>
            {inbox?.items.map((it) => (
              <li key={it.id} class={it.read ? '' : 'unread'}>
                <strong dir="auto">{it.title}</strong>
                <div class="small" dir="auto">
                  {it.text}
                </div>
                <div class="muted small">{formatDate(it.at)}</div>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
