// "Used of quota" at the foot of the sidebar: the account's own quota and those of the volumes
// it sees, read again on every navigation (an upload, a delete or emptying the trash changes them).
import { useEffect, useState } from 'preact/hooks';
import type { ApiAnswer } from '../../../src/contract.ts';
import { api } from '../api/client.ts';
import { location } from '../state/router.ts';
import { formatBytes } from '../util.ts';

type Mine = ApiAnswer<'GET /api/quota'>;
type Figures = Mine['volumes'][number] | NonNullable<Mine['account']>;

function Meter({ label, q }: { label: string; q: Figures }) {
  const limit = q.limitBytes ?? 0;
  const over = q.usedBytes >= limit;
  const kept = q.trashBytes + q.versionsBytes;
  return (
    <div
      class="quota"
      role="group"
      aria-label={`${label}: ${formatBytes(q.usedBytes) || '0 B'} of ${formatBytes(limit)} used`}
    >
      <div class="line">
        <span dir="auto">{label}</span>
        <span class={over ? 'danger-text' : undefined}>
          {formatBytes(q.usedBytes) || '0 B'} of {formatBytes(limit)}
        </span>
      </div>
      <meter
        min={0}
        max={limit}
        low={limit * 0.8}
        high={limit * 0.95}
        optimum={0}
        value={Math.min(q.usedBytes, limit)}
      />
      {over && <span class="small danger-text">Full: uploads here are refused until something is removed.</span>}
      {kept > 0 && <span class="small muted">Trash and versions count: {formatBytes(kept)}</span>}
      {'limitFrom' in q && q.limitFrom === 'group' && (
        <span class="small muted" dir="auto">
          The default of your group {q.limitGroup}
        </span>
      )}
    </div>
  );
}

export function QuotaMeter() {
  const [mine, setMine] = useState<Mine | null>(null);
  const path = location.value.path;
  useEffect(() => {
    api('GET /api/quota').then(setMine, () => setMine(null));
  }, [path]);
  if (!mine || (!mine.account && mine.volumes.length === 0)) return null;
  return (
    <section class="quota-meter" aria-label="Storage quota">
      {mine.account && <Meter label="Your storage" q={mine.account} />}
      {mine.volumes.map((v) => (
        <Meter key={v.volume} label={v.volume} q={v} />
      ))}
    </section>
  );
}
