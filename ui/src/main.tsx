import { render } from 'preact';
import { App } from './App.tsx';
import './styles.css';

// Apply a remembered theme before the first paint.
try {
  const t = localStorage.getItem('burrow.theme');
  if (t === 'light' || t === 'dark') document.documentElement.dataset.theme = t;
} catch {
  /* private mode */
}

// The static "Burrow" placeholder of index.html goes: render() does not replace what it finds,
// and a leftover below the shell made the whole page scroll.
const root = document.getElementById('app')!;
root.replaceChildren();
render(<App />, root);

// The service worker (public/sw.js): the app shell offline, and "Share → Burrow".
if ('serviceWorker' in navigator && window.isSecureContext) {
  void navigator.serviceWorker.register('/sw.js').catch(() => {
    /* an older browser or a private window: the app works without it */
  });
  // A page that loaded while the worker was installing can be missed by the claim it makes when
  // it activates (a navigation under way then): once the worker is ready, such a page asks it.
  void navigator.serviceWorker.ready.then((r) => {
    if (!navigator.serviceWorker.controller) r.active?.postMessage({ type: 'claim' });
  });
}
