// Short messages about results; errors stay until dismissed and carry the requestId.
import { signal } from '@preact/signals';
import { describeError } from '../api/client.ts';

/** `action`: one button on the toast (Undo); pressing it dismisses the toast and runs it. */
export interface ToastAction {
  label: string;
  run: () => void | Promise<void>;
}
export interface Toast {
  id: number;
  kind: 'info' | 'success' | 'error';
  text: string;
  requestId?: string;
  action?: ToastAction;
}

export const toasts = signal<Toast[]>([]);
let next = 1;

export function dismiss(id: number): void {
  toasts.value = toasts.value.filter((t) => t.id !== id);
}

export function toast(text: string, kind: Toast['kind'] = 'success', requestId?: string, action?: ToastAction): void {
  const t: Toast = { id: next++, kind, text, requestId, action };
  toasts.value = [...toasts.value.slice(-4), t];
  // A toast that offers Undo stays long enough to be read and pressed.
  if (kind !== 'error') setTimeout(() => dismiss(t.id), action ? 10_000 : 4000);
}

export function toastError(err: unknown, prefix?: string): void {
  const { message, requestId } = describeError(err);
  toast(prefix ? `${prefix}: ${message}` : message, 'error', requestId);
}
