// Whether the browser says it is on a network: the app says so instead of spinning.
import { signal } from '@preact/signals';

export const offline = signal(typeof navigator !== 'undefined' && navigator.onLine === false);

if (typeof window !== 'undefined') {
  window.addEventListener('online', () => (offline.value = false));
  window.addEventListener('offline', () => (offline.value = true));
}
