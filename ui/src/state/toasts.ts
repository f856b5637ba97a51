// Short messages about results; errors stay until dismissed and carry the requestId.
import { signal } from '@preact/signals';
import { describeError } from '../api/client.ts';

export interface Toast { id: number; kind: 'info' | 'success' | 'error'; text: string; requestId?: string }

export const toasts = signal<Toast[]>([]);
let next = 1;

export function dismiss(id: number): void {
  toasts.value = toasts.value.filter((t) => t.id !== id);
}

export function toast(text: string, kind: Toast['kind'] = 'success', requestId?: string): void {
  const t: Toast = { id: next++, kind, text, requestId };
  toasts.value = [...toasts.value.slice(-4), t];
  if (kind !== 'error') setTimeout(() => dismiss(t.id), 4000);
}

export function toastError(err: unknown, prefix?: string): void {
  const { message, requestId } = describeError(err);
  toast(prefix ? `${prefix}: ${message}` : message, 'error', requestId);
}
