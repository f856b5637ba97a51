// Work asked for several times in one turn of the event loop, done once on the next: after the
// transaction or the signal that asked for it has finished (the notification outbox's wake after
// an event row is committed, the installation switches read again after a change signal).

/** A function that runs `fn` on the next turn; calls before that turn are merged into one run. */
export function onNextTurn(fn: () => void): () => void {
  let queued = false;
  return () => {
    if (queued) return;
    queued = true;
    setImmediate(() => {
      queued = false;
      fn();
    });
  };
}
