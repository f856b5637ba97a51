// Long work the person started (deletes, copies, downloads): shown in the operations tray
// with progress and a cancel button.
import { signal } from '@preact/signals';

export interface Task {
  id: number;
  title: string;
  /** 0..1, or null when the amount of work is unknown. */
  progress: number | null;
  detail?: string;
  state: 'running' | 'done' | 'failed' | 'cancelled';
  requestId?: string;
  cancel?: () => void;
}

export const tasks = signal<Task[]>([]);
let next = 1;

export function startTask(title: string, cancel?: () => void): (patch: Partial<Task>) => void {
  const id = next++;
  tasks.value = [...tasks.value, { id, title, progress: null, state: 'running', cancel }];
  return (patch) => {
    tasks.value = tasks.value.map((t) => (t.id === id ? { ...t, ...patch } : t));
    if (patch.state === 'done') setTimeout(() => removeTask(id), 6000);
  };
}

export function removeTask(id: number): void {
  tasks.value = tasks.value.filter((t) => t.id !== id);
}
