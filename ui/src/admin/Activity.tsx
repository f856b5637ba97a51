// The activity log: filters, pages (keyset, newest first), clear, and the address diagnosis.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import { confirmDialog } from '../components/Dialog.tsx';
import { ErrorNote } from '../components/common.tsx';
import { toast, toastError } from '../state/toasts.ts';
import type { ActivityPage, AddressDiagnosis } from '../api/types.ts';
import { formatDate } from '../util.ts';
import { navigate } from '../state/router.ts';
import { actionName, describeActivity } from './activity-words.ts';

function Address() {
  const [info, setInfo] = useState<AddressDiagnosis | null>(null);
  const [error, setError] = useState<unknown>(null);
  const headers = info ? Object.entries(info.headers) : [];
  return (
    <details
      onToggle={(e) => {
        if ((e.currentTarget as HTMLDetailsElement).open && !info)
          api('GET /api/activity/address').then(setInfo, setError);
      }}
    >
      <summary>Which address is recorded for my requests?</summary>
      <ErrorNote error={error} />
      {info && (
        <dl class="facts" aria-label="Address diagnosis">
          <dt>Recorded</dt>
          <dd>
            <code>{info.recorded}</code>
          </dd>
          <dt>Connection from</dt>
          <dd>
            <code>{info.peer}</code>
          </dd>
          <dt>Proxy rule (TRUST_PROXY)</dt>
          <dd>
            <code>{info.trustProxy}</code> —{' '}
            {info.trustsPeer
              ? 'the connecting address is trusted, so forwarding headers are believed'
              : 'the connecting address is not trusted, so forwarding headers are ignored'}
          </dd>
          {info.forwardedChain.length > 0 && (
            <>
              <dt>Forwarded chain</dt>
              <dd>
                <code>{info.forwardedChain.join(' → ')}</code>
              </dd>
            </>
          )}
          <dt>Forwarding headers</dt>
          <dd>
            {headers.length
              ? headers.map(([k, v]) => (
                  <div key={k}>
                    <code>
                      {k}: {v}
                    </code>
                  </div>
                ))
              : 'none arrived'}
          </dd>
        </dl>
      )}
    </details>
  );
}

export function Activity() {
  const [filters, setFilters] = useState({ action: '', outcome: '', user: '', from: '', to: '', q: '' });
  const [pages, setPages] = useState<string[]>([]);
  const [page, setPage] = useState<ActivityPage | null>(null);
  const [error, setError] = useState<unknown>(null);
  const before = pages[pages.length - 1];
  const load = () => {
    const { action, outcome, user, from, to, q } = filters;
    const iso = (v: string) => (v ? new Date(v).toISOString() : undefined);
    api('GET /api/activity', {
      query: {
        limit: 50,
        action: action || undefined,
        outcome: outcome === 'success' || outcome === 'failure' ? outcome : undefined,
        user: user || undefined,
        from: iso(from),
        to: iso(to),
        q: q || undefined,
        before: before || undefined,
      },
    }).then((a) => {
      setPage(a);
      setError(null);
    }, setError);
  };
  useEffect(load, [before]);
  // Back to the newest page: a change of `before` reloads by itself; on the first page, load now.
  const firstPage = () => {
    if (pages.length) setPages([]);
    else load();
  };
  const rows = page?.rows ?? [];
  const f = (k: keyof typeof filters) => ({
    value: filters[k],
    onInput: (e: Event) => setFilters({ ...filters, [k]: (e.currentTarget as HTMLInputElement).value }),
  });
  const clear = async () => {
    if (
      !(await confirmDialog({
        title: 'Clear the activity log?',
        body: 'Every row is deleted; one row records that you cleared it.',
        confirm: 'Clear log',
        danger: true,
      }))
    )
      return;
    try {
      const a = await api('DELETE /api/activity');
      toast(`Removed ${a.removed} row${a.removed === 1 ? '' : 's'}`);
      firstPage();
    } catch (err) {
      toastError(err);
    }
  };
  return (
    <div class="stack">
      {page && !page.enabled && (
        <p class="notice" role="note">
          The activity log is off.{' '}
          <a
            href="/admin/installation"
            onClick={(e) => {
              e.preventDefault();
              navigate('/admin/installation');
            }}
          >
            Switch it on under Installation
          </a>
          .
        </p>
      )}
      <form
        class="form-grid"
        onSubmit={(e) => {
          e.preventDefault();
          firstPage();
        }}
        aria-label="Filters"
      >
        <label>
          Action
          <select {...f('action')}>
            <option value="">Any</option>
            {page?.actions?.map((a) => (
              <option key={a} value={a}>
                {actionName(a)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Outcome
          <select {...f('outcome')}>
            <option value="">Any</option>
            <option value="success">Succeeded</option>
            <option value="failure">Refused or failed</option>
          </select>
        </label>
        <label>
          User
          <input {...f('user')} />
        </label>
        <label>
          From
          <input type="datetime-local" {...f('from')} />
        </label>
        <label>
          To
          <input type="datetime-local" {...f('to')} />
        </label>
        <label>
          Text
          <input {...f('q')} />
        </label>
        <div class="actions">
          <button class="primary">Filter</button>
          <button type="button" class="danger" onClick={() => void clear()}>
            Clear log
          </button>
        </div>
      </form>
      <ErrorNote error={error} />
      <div class="table-wrap">
        <table class="data" aria-label="Activity">
          <thead>
            <tr>
              <th>When</th>
              <th>Action</th>
              <th>Outcome</th>
              <th>User</th>
              <th>Address</th>
              <th>Detail</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                <td class="small">{formatDate(r.time)}</td>
                <td data-label="Action" title={r.action}>
                  {actionName(r.action)}
                </td>
                <td data-label="Outcome">{r.outcome === 'failure' ? 'Refused or failed' : 'Succeeded'}</td>
                <td dir="auto" data-label="User">
                  {r.username ?? r.userId ?? ''}
                </td>
                <td class="small" data-label="Address">
                  {r.address ?? ''}
                </td>
                <td class="small detail" dir="auto">
                  {describeActivity(r.action, r.detail, r.outcome)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {page && !rows.length && <p class="muted">No rows.</p>}
      <div class="actions" style={{ justifyContent: 'flex-start' }}>
        <button type="button" disabled={!pages.length} onClick={() => setPages(pages.slice(0, -1))}>
          Newer
        </button>
        <span class="muted small" aria-live="polite">
          Page {pages.length + 1}
        </span>
        <button type="button" disabled={!page?.nextBefore} onClick={() => setPages([...pages, page!.nextBefore!])}>
          Older
        </button>
      </div>
      <Address />
    </div>
  );
}
