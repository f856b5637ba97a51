// Quotas: what each account may fill (its personal folder, the trash it filled, the versions its
// saves kept) and what each volume may hold, with what they use now.
import { useEffect, useState } from 'preact/hooks';
import type { ApiAnswer } from '../../../src/contract.ts';
import { api } from '../api/client.ts';
import { ErrorNote } from '../components/common.tsx';
import { toast, toastError } from '../state/toasts.ts';
import { formatBytes } from '../util.ts';

type Overview = ApiAnswer<'GET /api/admin/quotas'>;
type Figures = Overview['accounts'][number] | Overview['volumes'][number];

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4 };

/** "10 GB", "500mb", "1.5 TB", "123456" (bytes); empty: no quota. Undefined when unreadable. */
export function parseSize(text: string): number | null | undefined {
  const t = text.trim().toLowerCase().replace(',', '.');
  if (!t) return null;
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb|tb|kib|mib|gib|tib)?$/.exec(t);
  if (!m) return undefined;
  return Math.round(Number(m[1]) * UNITS[(m[2] ?? 'b').replace('i', '')]!);
}

function Used({ q }: { q: Figures }) {
  const parts = [
    q.trashBytes ? `trash ${formatBytes(q.trashBytes)}` : '',
    q.versionsBytes ? `versions ${formatBytes(q.versionsBytes)}` : '',
    q.reservedBytes ? `in flight ${formatBytes(q.reservedBytes)}` : '',
  ].filter(Boolean);
  const over = q.limitBytes !== null && q.usedBytes > q.limitBytes;
  return (
    <>
      <span class={over ? 'danger-text' : undefined}>
        {formatBytes(q.usedBytes) || '0 B'}
        {q.limitBytes !== null && ` of ${formatBytes(q.limitBytes)}`}
      </span>
      {parts.length > 0 && <span class="small muted"> (incl. {parts.join(', ')})</span>}
      {!q.measured && <span class="small muted"> — not measured yet</span>}
    </>
  );
}

function LimitField({
  label,
  value,
  empty = 'No quota',
  save,
}: {
  label: string;
  value: number | null;
  /** What an empty field means. */
  empty?: string;
  save: (limit: number | null) => Promise<unknown>;
}) {
  const [text, setText] = useState(value === null ? '' : formatBytes(value));
  const [bad, setBad] = useState(false);
  const submit = (e: Event) => {
    e.preventDefault();
    const limit = parseSize(text);
    setBad(limit === undefined);
    if (limit === undefined) return;
    void save(limit);
  };
  return (
    <form class="quota-field" onSubmit={submit}>
      <input
        aria-label={label}
        placeholder={empty}
        value={text}
        aria-invalid={bad}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      <button class="small">Save</button>
      {bad && (
        <span class="small danger-text" role="alert">
          Write a size such as 500 MB or 2 GB, or leave it empty for no quota.
        </span>
      )}
    </form>
  );
}

export function Quotas() {
  const [data, setData] = useState<Overview | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = () =>
    api('GET /api/admin/quotas').then((a) => {
      setData(a);
      setError(null);
    }, setError);
  useEffect(() => {
    void load();
  }, []);
  const saved = (p: Promise<unknown>, what: string) =>
    p.then(
      () => {
        toast(what);
        void load();
      },
      (err) => toastError(err),
    );
  const setAccount = (id: string, name: string, limitBytes: number | null) =>
    saved(
      api('PUT /api/admin/quotas/accounts/:id', { params: { id }, body: { limitBytes } }),
      limitBytes === null ? `${name} has no quota now` : `Quota of ${name} saved`,
    );
  const setGroup = (id: string, name: string, limitBytes: number | null) =>
    saved(
      api('PUT /api/admin/quotas/groups/:id', { params: { id }, body: { limitBytes } }),
      limitBytes === null ? `${name} has no default quota now` : `Default quota of ${name} saved`,
    );
  const setVolume = (name: string, limitBytes: number | null) =>
    saved(
      api('PUT /api/admin/quotas/volumes/:name', { params: { name }, body: { limitBytes } }),
      limitBytes === null ? `${name} has no quota now` : `Quota of ${name} saved`,
    );
  return (
    <div class="stack">
      <ErrorNote error={error} />
      {data && !data.measuring && (
        <p class="warning" role="status">
          Quotas are measured by the folder-size index: set Folder sizes to “Full” under Installation before setting
          one.
        </p>
      )}
      <p class="small muted">
        An account's quota counts its personal folder, the items it deleted while the trash keeps them and the versions
        its saves kept; files sent to its file requests count too. A volume's quota counts everything the volume holds.
        Uploads, copies and extractions that would go over are refused before anything is written.
      </p>
      {data && (
        <>
          <h2>Accounts</h2>
          <div class="table-wrap">
            <table class="data" aria-label="Account quotas">
              <thead>
                <tr>
                  <th>Account</th>
                  <th>Used</th>
                  <th>Quota</th>
                </tr>
              </thead>
              <tbody>
                {data.accounts.map((a) => (
                  <tr key={a.userId}>
                    <td dir="auto">{a.username}</td>
                    <td data-label="Used">
                      <Used q={a} />
                    </td>
                    <td data-label="Quota">
                      <LimitField
                        label={`Quota of ${a.username}`}
                        value={a.limitFrom === 'account' ? a.limitBytes : null}
                        empty={
                          a.limitFrom === 'group' && a.limitBytes !== null
                            ? `${formatBytes(a.limitBytes)} from ${a.limitGroup}`
                            : 'No quota'
                        }
                        save={(l) => setAccount(a.userId, a.username, l)}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h2>Group defaults</h2>
          <p class="small muted">
            An account without a quota of its own takes the largest default among its groups: being in one more group
            never takes room away. To give one person less, set their own quota above.
          </p>
          {data.groups.length === 0 ? (
            <p class="muted">No groups yet (Administration → Groups).</p>
          ) : (
            <div class="table-wrap">
              <table class="data" aria-label="Group default quotas">
                <thead>
                  <tr>
                    <th>Group</th>
                    <th>Default quota of its members</th>
                  </tr>
                </thead>
                <tbody>
                  {data.groups.map((g) => (
                    <tr key={g.groupId}>
                      <td dir="auto">{g.name}</td>
                      <td data-label="Default quota">
                        <LimitField
                          label={`Default quota of ${g.name}`}
                          value={g.defaultLimitBytes}
                          empty="No default"
                          save={(l) => setGroup(g.groupId, g.name, l)}
                        />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <h2>Volumes</h2>
          <div class="table-wrap">
            <table class="data" aria-label="Volume quotas">
              <thead>
                <tr>
                  <th>Volume</th>
                  <th>Used</th>
                  <th>Quota</th>
                </tr>
              </thead>
              <tbody>
                {data.volumes.map((v) => (
                  <tr key={v.volume}>
                    <td dir="auto">{v.volume}</td>
                    <td data-label="Used">
                      <Used q={v} />
                    </td>
                    <td data-label="Quota">
                      <LimitField
                        label={`Quota of ${v.volume}`}
                        value={v.limitBytes}
                        save={(l) => setVolume(v.volume, l)}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}
