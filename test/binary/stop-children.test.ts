// A stopped server leaves nothing of its own writing behind it. After its first walks the
// executable starts itself again as `--check-addons`, which extracts the native add-ons into
// CACHE_DIR/native; a server stopped while that child ran went on without it, and the child
// kept writing into CACHE_DIR after its server had exited (through the tests' cluster, folders
// removed right after a stop failed with ENOTEMPTY: a `--check-addons` child was writing
// `cache-node1/native/addon-image-….tmp-<pid>-…`).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, slowdown, start } from './harness.ts';
import { waitFor } from '../support/wait.ts';

/** The child of `parent` started with `arg`, if there is one now (`/proc/*\/stat`, its cmdline). */
function childWith(parent: number, arg: string): number | undefined {
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent && fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').includes(arg)) return Number(d);
    } catch {
      /* ended meanwhile */
    }
  }
  return undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Folders in CACHE_DIR/native still being written (a pack's temporary name), by `pid` when given. */
function unfinished(cacheDir: string, pid?: number): string[] {
  let names: string[] = [];
  try {
    names = fs.readdirSync(path.join(cacheDir, 'native'));
  } catch {
    /* not made yet */
  }
  return names.filter((n) => n.includes(pid === undefined ? '.tmp-' : `.tmp-${pid}-`));
}

test('a stop ends the add-on check it started and waits for it: nothing of it writes into CACHE_DIR after, nothing is left half-extracted', async () => {
  const box = sandbox();
  const run = await start(box);
  let check: number | undefined;
  try {
    // Caught while it writes an add-on's folder and frozen there (SIGSTOP): a low-priority
    // child on a busy machine, which would not have finished when its server is told to stop.
    check = await waitFor(
      () => {
        const pid = childWith(run.child.pid!, '--check-addons');
        if (pid === undefined || !unfinished(box.cacheDir, pid).length) return undefined;
        process.kill(pid, 'SIGSTOP');
        if (unfinished(box.cacheDir, pid).length) return pid;
        // It renamed that folder just before it froze: on to its next one.
        process.kill(pid, 'SIGCONT');
        return undefined;
      },
      { what: 'the --check-addons child writing into CACHE_DIR/native', everyMs: 5, timeoutMs: 60_000 * slowdown },
    );
    assert.is(await run.stop('SIGTERM'), 0, run.output().slice(-2000));
    assert.not.ok(alive(check), `the --check-addons child (${check}) outlived its server`);
    assert.equal(unfinished(box.cacheDir), [], 'nothing is left half-extracted in CACHE_DIR/native');
    assert.not.match(run.output(), /"msg":"optional parts"/, 'an ended check reports nothing');
  } finally {
    if (check !== undefined && alive(check)) process.kill(check, 'SIGKILL');
    await run.stop('SIGKILL');
    box.remove();
  }
});

test.run();
