// Runs when imported: src/main.ts imports it first, so a server start that owes a full walk
// starts the walker's thread before the rest of the executable's modules are evaluated (early.ts).
import { startEarlyWalker, type EarlyWalker } from './early.ts';

let early: EarlyWalker | undefined =
  // A forked helper (the Windows pty agent, native.ts) is never a server start.
  typeof process.send === 'function' ? undefined : startEarlyWalker(process.argv.slice(2), process.env);

/** The thread started at load, once (main.ts hands it to createApp). */
export function takeEarlyWalker(): EarlyWalker | undefined {
  const taken = early;
  early = undefined;
  return taken;
}
