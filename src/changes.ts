// The one sink through which every write announces what it changed (files ops, uploads,
// archive extraction, editor saves). The indexer subscribes; writers never import it, and
// nothing learns of a write by rescanning. Paths are absolute host paths, after the write.

export type Change =
  | { type: 'created'; path: string; isDirectory: boolean }
  | { type: 'modified'; path: string }
  | { type: 'deleted'; path: string; isDirectory: boolean }
  | { type: 'moved'; from: string; to: string; isDirectory: boolean };

/** The paths a change touches: both ends of a move, else its one path. */
export const changePaths = (c: Change): string[] => (c.type === 'moved' ? [c.from, c.to] : [c.path]);

export type ChangeListener = (change: Change) => void;

export interface ChangeSink {
  emit(change: Change): void;
  subscribe(listener: ChangeListener): () => void;
}

export function createChangeSink(onListenerError: (err: unknown) => void = () => {}): ChangeSink {
  const listeners = new Set<ChangeListener>();
  return {
    emit(change) {
      for (const listener of listeners) {
        // A failing subscriber (an index) must never fail the write that already happened.
        try {
          listener(change);
        } catch (err) {
          onListenerError(err);
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
