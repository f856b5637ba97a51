import { render } from 'preact';
import { App } from './App.tsx';
import './styles.css';

// Apply a remembered theme before the first paint.
try {
  const t = localStorage.getItem('burrow.theme');
  if (t === 'light' || t === 'dark') document.documentElement.dataset.theme = t;
} catch { /* private mode */ }

render(<App />, document.getElementById('app')!);
