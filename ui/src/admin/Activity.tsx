// The activity log: filters, pages (keyset, newest first), clear, and the address diagnosis.
import { useEffect, useState } from 'preact/hooks';
import { del, get } from '../api/client.ts';
import { confirmDialog } from '../components/Dialog.tsx';
import { ErrorNote } from '../components/common.tsx';
import { toast, toastError } from '../state/toasts.ts';
import { formatDate } from '../util.ts';

interface Row { id?: string | number; action: string; outcome?: string; user?: string | null; username?: string | null; userId?: string | null; at?: string; time?: string; createdAt?: string; ip?: string | null; address?: string | null; detail?: unknown }
interface Page { rows?: Row[]; items?: Row[]; entries?: Row[]; nextBefore?: string | null; enabled: boolean; actions?: string[] }

function Address() {
  const [info, setInfo] = useState<Record<string, unknown> | null>(null);
  const [error, setError] = useState<unknown>(null);
  return (
    <details onToggle={(e) => { if ((e.currentTarget as HTMLDetailsElement).open && !info) get('/api/activity/address').then(setInfo, setError); }}>
      <summary>Which address is recorded for my requests?</summary>
      <ErrorNote error={error} />
      {info && <dl class="facts">{Object.entries(info).map(([k, v]) => <><dt>{k}</dt><dd><code>{typeof v === 'object' ? JSON.stringify(v) : String(v)}</code></dd></>)}</dl>}
    </details>
  );
}

export function Activity() {
  const [filters, setFilters] = useState({ action: '', outcome: '', user: '', from: '', to: '', q: '' });
  const [pages, setPages] = useState<string[]>([]);
  const [page, setPage] = useState<Page | null>(null);
  const [error, setError] = useState<unknown>(null);
  const before = pages[pages.length - 1];
  const load = () => {
    const p = new URLSearchParams({ limit: '50' });
    for (const [k, v] of Object.entries(filters)) if (v) p.set(k, k === 'from' || k === 'to' ? new Date(v).toISOString() : v);
    if (before) p.set('before', before);
    get<Page>(`/api/activity?${p}`).then((a) => { setPage(a); setError(null); }, setError);
  };
  useEffect(load, [before]);
  const rows = page?.rows ?? page?.items ?? page?.entries ?? [];
  const f = (k: keyof typeof filters) => ({ value: filters[k], onInput: (e: Event) => setFilters({ ...filters, [k]: (e.currentTarget as HTMLInputElement).value }) });
  const clear = async () => {
    if (!await confirmDialog({ title: 'Clear the activity log?', body: 'Every row is deleted; one row records that you cleared it.', confirm: 'Clear log', danger: true })) return;
    try { const a = await del<{ removed: number }>('/api/activity'); toast(`Removed ${a?.removed ?? 0} rows`); setPages([]); load(); } catch (err) { toastError(err); }
  };
  return (
    <div class="stack">
      {page && !page.enabled && <p class="notice">The activity log is off. Switch it on under Installation.</p>}
      <form class="form-grid" onSubmit={(e) => { e.preventDefault(); setPages([]); load(); }} aria-label="Filters">
        <label>Action<select {...f('action')}><option value="">Any</option>{page?.actions?.map((a) => <option key={a} value={a}>{a}</option>)}</select></label>
        <label>Outcome<select {...f('outcome')}><option value="">Any</option><option value="success">Success</option><option value="failure">Failure</option></select></label>
        <label>User<input {...f('user')} /></label>
        <label>From<input type="datetime-local" {...f('from')} /></label>
        <label>To<input type="datetime-local" {...f('to')} /></label>
        <label>Text<input {...f('q')} /></label>
        <div class="actions"><button class="primary">Filter</button><button type="button" class="danger" onClick={() => void clear()}>Clear log</button></div>
      </form>
      <ErrorNote error={error} />
      <div class="table-wrap">
        <table class="data" aria-label="Activity">
          <thead><tr><th>When</th><th>Action</th><th>Outcome</th><th>User</th><th>Address</th><th>Detail</th></tr></thead>
          <tbody>{rows.map((r, i) => (
            <tr key={r.id ?? i}>
              <td class="small">{formatDate(r.at ?? r.time ?? r.createdAt)}</td><td><code>{r.action}</code></td><td>{r.outcome}</td>
              <td dir="auto">{r.username ?? r.user ?? r.userId ?? ''}</td><td class="small">{r.ip ?? r.address ?? ''}</td>
              <td class="small" dir="auto">{r.detail === undefined || r.detail === null ? '' : typeof r.detail === 'string' ? r.detail : JSON.stringify(r.detail)}</td>
            </tr>
          ))}</tbody>
        </table>
      </div>
      {page && !rows.length && <p class="muted">No rows.</p>}
      <div class="actions" style={{ justifyContent: 'flex-start' }}>
        <button type="button" disabled={!pages.length} onClick={() => setPages(pages.slice(0, -1))}>Newer</button>
        <button type="button" disabled={!page?.nextBefore} onClick={() => setPages([...pages, page!.nextBefore!])}>Older</button>
      </div>
      <Address />
    </div>
  );
}
