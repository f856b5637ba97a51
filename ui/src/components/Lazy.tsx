// Renders the default export of a module loaded on first use (heavy screens stay out of the
// first page's bundle).
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ErrorNote, Spinner } from './common.tsx';

const cache = new Map<Function, ComponentType<any>>();

export function Lazy<P>({ load, props }: { load: () => Promise<{ default: ComponentType<P> }>; props: P }) {
  const key = load.toString();
  const known = [...cache.entries()].find(([k]) => k.toString() === key)?.[1];
  const [Component, setComponent] = useState<ComponentType<P> | undefined>(() => known);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (Component) return;
    let live = true;
    load().then((m) => { cache.set(load, m.default); if (live) setComponent(() => m.default); }, (err) => { if (live) setError(new Error(`This part of the page could not be loaded (${(err as Error).message}). Reload the page.`)); });
    return () => { live = false; };
  }, [key]);
  if (error) return <ErrorNote error={error} />;
  if (!Component) return <div class="center"><Spinner /></div>;
  return <Component {...(props as any)} />;
}
