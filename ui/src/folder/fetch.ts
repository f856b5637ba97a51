// Add from link: a file fetched by the server from a web address into the open folder. The
// server answers once the other server has begun to answer (a refused address, a missing file or
// one too large is said in the dialog); the transfer is then followed in the operations tray,
// where it can be cancelled, and the folder shows the file once it is placed.
import { api } from '../api/client.ts';
import { askText } from '../components/Dialog.tsx';
import { startTask } from '../state/tasks.ts';
import { toast } from '../state/toasts.ts';
import { formatBytes } from '../util.ts';
import { folderPath, reload } from './model.ts';

/** How often a running fetch is asked for its progress. */
const POLL_MS = 700;

export function addFromLink(): void {
  const target = folderPath.value;
  askText({
    title: 'Add from link',
    label: 'Web address of the file (https://…)',
    confirm: 'Add',
    action: async (url) => {
      const job = await api('POST /api/fetch', { body: { url: url.trim(), uploadTo: target } });
      follow(job.id, job.name, target);
    },
  });
}

function follow(id: string, name: string, target: string): void {
  let cancelled = false;
  const update = startTask(`Adding ${name} from the web`, () => {
    cancelled = true;
    void api('DELETE /api/fetch/:id', { params: { id } }).catch(() => {});
  });
  const tick = async () => {
    let job;
    try {
      job = await api('GET /api/fetch/:id', { params: { id } });
    } catch (err) {
      update({ state: 'failed', detail: (err as Error).message });
      return;
    }
    if (job.state === 'running') {
      update({
        progress: job.total ? job.received / job.total : null,
        detail: `${formatBytes(job.received)}${job.total ? ` of ${formatBytes(job.total)}` : ''}`,
      });
      setTimeout(() => void tick(), POLL_MS);
      return;
    }
    if (job.state === 'done' && job.item) {
      const landed = job.item.name;
      update({ state: 'done', progress: 1, detail: `Added as ${landed}` });
      toast(`Added ${landed} to ${target || 'the folder'}`, 'success');
      if (folderPath.value === target) await reload();
    } else
      update({
        state: cancelled || job.state === 'cancelled' ? 'cancelled' : 'failed',
        detail: job.error?.message ?? 'The fetch stopped.',
      });
  };
  void tick();
}
