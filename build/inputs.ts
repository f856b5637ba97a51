// What a build is made from, as one hash: the tests rebuild the executable when it changes.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';

const SKIP = new Set(['node_modules', 'dist', '.vite']);

function addTree(hash: ReturnType<typeof createHash>, root: string, rel: string): void {
  const dir = path.join(root, rel);
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (SKIP.has(entry.name)) continue;
    const child = `${rel}/${entry.name}`;
    if (entry.isDirectory()) addTree(hash, root, child);
    else if (entry.isFile())
      hash
        .update(`${child}\0`)
        .update(fs.readFileSync(path.join(root, child)))
        .update('\0');
  }
}

export function inputHash(root: string): string {
  const hash = createHash('sha256');
  for (const tree of ['src', 'ui', 'build']) addTree(hash, root, tree);
  for (const file of ['package.json', 'package-lock.json']) {
    const p = path.join(root, file);
    if (fs.existsSync(p)) hash.update(`${file}\0`).update(fs.readFileSync(p));
  }
  hash.update(process.version);
  hash.update(process.env.BURROW_RELEASE?.trim() ?? '');
  return hash.digest('hex');
}

/** Written beside the executables by build/build.ts. */
export interface BuildInfo {
  readonly inputs: string;
  /** Whether a built UI is embedded. */
  readonly ui: boolean;
  readonly targets: Record<string, { file: string; bytes: number; sha256: string }>;
  readonly skipped: Record<string, string>;
  /** The release label stamped into the executables (`burrow --version`). */
  readonly release?: string;
  /** What is inside: the Node of each target, the add-on and SQLite package versions. */
  readonly manifest?: {
    release: string;
    builtWith: string;
    addons: Record<string, string>;
    node: Record<string, string>;
  };
}

export const BUILD_INFO = 'build-info.json';
