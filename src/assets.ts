// Files that travel inside the executable (UI, migrations, the SQLite .wasm, add-ons).
// From a source checkout they are read from the tree instead.
import { createRequire } from 'node:module';

type Sea = { isSea(): boolean; getRawAsset(key: string): ArrayBuffer };

let sea: Sea | null | undefined;
function seaModule(): Sea | null {
  if (sea === undefined) {
    try {
      const mod = createRequire(import.meta.url)('node:sea') as Sea;
      sea = mod.isSea() ? mod : null;
    } catch {
      sea = null;
    }
  }
  return sea;
}

export function isExecutable(): boolean {
  return seaModule() !== null;
}

/** An asset embedded in the executable, or null when running from source (or absent). */
export function readEmbeddedAsset(key: string): Buffer | null {
  const s = seaModule();
  if (!s) return null;
  try {
    return Buffer.from(s.getRawAsset(key));
  } catch {
    return null;
  }
}
