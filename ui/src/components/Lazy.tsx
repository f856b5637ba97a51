// Renders the default export of a module loaded on first use (heavy screens stay out of the
// first page's bundle). The loaded component is remembered with the loader it came from, so
// one Lazy slot that is handed another loader (Settings → Administration) shows the new one.
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ErrorNote, Spinner } from './common.tsx';

const cache = new Map<string, ComponentType<any>>();

export function Lazy<P>({ load, props }: { load: () => Promise<{ default: ComponentType<P> }>; props: P }) {
  const key = load.toString();
  const [loaded, setLoaded] = useState<{ key: string; Component: ComponentType<P> } | null>(null);
  const [error, setError] = useState<{ key: string; error: unknown } | null>(null);
  const Component = cache.get(key) ?? (loaded?.key === key ? loaded.Component : undefined);
  useEffect(() => {
    if (cache.has(key)) return;
    let live = true;
    load().then(
      (m) => {
        cache.set(key, m.default);
        if (live) setLoaded({ key, Component: m.default });
      },
      (err) => {
        if (live)
          setError({
            key,
            error: new Error(`This part of the page could not be loaded (${(err as Error).message}). Reload the page.`),
          });
      },
    );
    return () => {
      live = false;
    };
  }, [key]);
  if (error?.key === key) return <ErrorNote error={error.error} />;
  if (!Component)
    return (
      <div class="center">
        <Spinner />
      </div>
    );
  return <Component {...(props as any)} />;
}
