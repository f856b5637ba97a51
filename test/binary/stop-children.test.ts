// A stopped server leaves nothing of its own writing behind it. The executable starts itself
// again for work that writes into CACHE_DIR: `--check-addons` after its first walks, and
// `--picture-child` on the first thumbnail, each of which extracts the native add-ons into
// CACHE_DIR/native. A server stopped while such a child ran went on without it, and the child
// kept writing there after its server had exited (through the tests' cluster, folders removed
// right after a stop failed with ENOTEMPTY: a `--check-addons` child was writing
// `cache-node1/native/addon-image-….tmp-<pid>-…`, and a removal that won was undone by it).
//
// Each child is frozen (SIGSTOP) as soon as it is seen, before it has written anything: a
// low-priority child on a busy machine, which has not finished when its server is told to stop.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { bareEnv, sandbox, slowdown, start, type Running, type Sandbox } from './harness.ts';
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

/** The server's child started with `arg`, frozen as soon as it is seen. */
async function frozenChild(run: Running, arg: string, frozen: number[]): Promise<number> {
  const pid = await waitFor(() => childWith(run.child.pid!, arg), {
    what: `a ${arg} child of the server`,
    everyMs: 5,
    timeoutMs: 60_000 * slowdown,
  });
  process.kill(pid, 'SIGSTOP');
  frozen.push(pid);
  return pid;
}

/** Folders in CACHE_DIR/native still being written (a pack's temporary name). */
function unfinished(box: Sandbox): string[] {
  let names: string[] = [];
  try {
    names = fs.readdirSync(path.join(box.cacheDir, 'native'));
  } catch {
    /* not made yet */
  }
  return names.filter((n) => n.includes('.tmp-'));
}

/** The server stopped with SIGTERM: it exits 0 and none of `children` outlives it. */
async function stopsWithItsChildren(run: Running, box: Sandbox, children: Record<string, number>): Promise<void> {
  assert.is(await run.stop('SIGTERM'), 0, run.output().slice(-2000));
  for (const [what, pid] of Object.entries(children))
    assert.not.ok(alive(pid), `the ${what} child (${pid}) outlived its server`);
  assert.equal(unfinished(box), [], 'nothing is left half-extracted in CACHE_DIR/native');
  assert.not.match(run.output(), /"msg":"optional parts"/, 'an ended check reports nothing');
}

/** A grey PNG of `side` × `side` pixels. */
function png(side: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(zlib.crc32(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.writeUInt8(8, 8); // 8 bits, greyscale
  const rows = Buffer.alloc(side * (side + 1), 0x80);
  for (let y = 0; y < side; y++) rows[y * (side + 1)] = 0; // filter: none
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

test('a stop ends the add-on check it started and waits for it: it does not outlive its server', async () => {
  const box = sandbox();
  const run = await start(box);
  const frozen: number[] = [];
  try {
    const check = await frozenChild(run, '--check-addons', frozen);
    await stopsWithItsChildren(run, box, { '--check-addons': check });
  } finally {
    for (const pid of frozen) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await run.stop('SIGKILL');
    box.remove();
  }
});

test('a stop ends the picture child of the thumbnails and waits for it: it does not outlive its server', async () => {
  const box = sandbox();
  fs.mkdirSync(path.join(box.volumeRoot, 'Files'), { recursive: true });
  fs.writeFileSync(path.join(box.volumeRoot, 'Files', 'grey square.png'), png(64));
  const run = await start(box, bareEnv(box, { AUTH_MODE: 'disabled' }));
  const frozen: number[] = [];
  const asking = new AbortController();
  try {
    // The add-on check held before it extracts anything, so the picture child is the one that would.
    const check = await frozenChild(run, '--check-addons', frozen);
    const thumbnail = fetch(`${run.url}/api/thumbnails/Files/grey%20square.png`, { signal: asking.signal }).catch(
      (err: Error) => err,
    );
    const picture = await frozenChild(run, '--picture-child', frozen);
    // Whoever asked has gone: the server has no request left to finish.
    asking.abort();
    assert.instance(await thumbnail, Error);
    await stopsWithItsChildren(run, box, { '--check-addons': check, '--picture-child': picture });
  } finally {
    for (const pid of frozen) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await run.stop('SIGKILL');
    box.remove();
  }
});

test.run();
