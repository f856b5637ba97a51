// Upload bookkeeping, read by the tray. The uploader itself (tus-js-client) is loaded only
// when the first upload starts.
import { computed, signal } from '@preact/signals';

export interface UploadEntry {
  id: number;
  name: string;
  /** Folder it goes to, and its path inside that folder. */
  target: string;
  relativePath: string;
  size: number;
  sent: number;
  state: 'queued' | 'uploading' | 'paused' | 'done' | 'failed' | 'cancelled';
  /** The stored name when the server had to pick `name (1)`. */
  storedAs?: string;
  /** The user's answer to a taken name, sent with the upload. */
  conflict?: 'rename' | 'skip' | 'replace';
  /** What the server did (a replaced file's old content is a version). */
  outcome?: 'placed' | 'renamed' | 'replaced' | 'skipped';
  error?: string;
  requestId?: string;
  startedAt?: number;
}

export const uploads = signal<UploadEntry[]>([]);
/** Bytes per second over the last few seconds, for the total. */
export const uploadSpeed = signal(0);

export const uploadTotals = computed(() => {
  let size = 0,
    sent = 0,
    active = 0;
  for (const u of uploads.value) {
    if (u.state === 'cancelled') continue;
    size += u.size;
    sent += Math.min(u.sent, u.size);
    if (u.state === 'uploading' || u.state === 'queued') active++;
  }
  return { size, sent, active };
});

export function updateUpload(id: number, patch: Partial<UploadEntry>): void {
  uploads.value = uploads.value.map((u) => (u.id === id ? { ...u, ...patch } : u));
}

export function clearFinishedUploads(): void {
  uploads.value = uploads.value.filter((u) => u.state !== 'done' && u.state !== 'cancelled');
}
