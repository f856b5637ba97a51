// SQLite's WebAssembly stays on V8's baseline compiler (Liftoff). Without this the optimizing
// compiler re-compiles SQLite's hot functions on background threads, and the memory of those
// compilations stays with the process: +21-26 MB of idle RSS for 1.1-1.8x on SQL-heavy work
// (`npm run bench -- sqlite-tiering`, build/README.md).
//
// Set at run time, not on the command line: a V8 flag given at start changes V8's flag hash,
// and V8 then rejects every code cache made without it (Node's own for its built-in modules,
// the executable's for its bundle). `--liftoff-only` alone is not enough here: the flags it
// implies (no tier-up) are only derived at V8's start, so they are named too.
import v8 from 'node:v8';

const BASELINE_ONLY = '--liftoff-only --no-wasm-tier-up --no-wasm-dynamic-tiering';

let set = false;

/** Call before the first WebAssembly module compiles; later modules compile the same way. */
export function wasmBaselineOnly(): void {
  if (set) return;
  set = true;
  v8.setFlagsFromString(BASELINE_ONLY);
}
