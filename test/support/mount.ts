// A second, small file system for tests that need one (cross-device moves, a full disk).
// CI runs as root, so a tmpfs is mounted where the test wants it. When that is impossible the
// test fails with the reason: it never skips.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

export interface Mounted {
  readonly dir: string;
  unmount(): void;
}

/** Mounts a fresh tmpfs of `size` (e.g. `2m`, `256m`) at `dir`, created if missing. */
export function mountTmpfs(dir: string, size: string): Mounted {
  fs.mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    const why = (err as { stderr?: Buffer }).stderr?.toString().trim() || (err as Error).message;
    throw new Error(`this test needs a tmpfs mounted at ${dir} (run it as root, as CI does): ${why}`);
  }
  return {
    dir,
    unmount: () => execFileSync('umount', [dir], { stdio: 'pipe' }),
  };
}
