// Live folders on a network mount (issue 30, item 4: "network mounts, which inotify does not see,
// fall back to the index's periodic rescan and say so in doctor"). inotify hears only this
// machine's writes on NFS, SMB or sshfs, so the watcher (src/live/watcher.ts) puts no watch on a
// folder there and answers `rescan`: the page is told (`watching` … `outside: 'rescan'`) and what
// the index's rescan finds (it emits on the change sink, indexer/maintenance.ts) reaches the page.
// A folder on a local disk gets its inotify watch. `burrow doctor` says so on the volume's line.
// The mount table is the watcher's and the doctor's own parameter here (a real NFS or FUSE mount
// needs a server this test cannot make), over real folders and the real change sink.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createChangeSink } from '../../src/changes.ts';
import type { Caller } from '../../src/core/caller.ts';
import { createLogger } from '../../src/core/log.ts';
import { liveNote } from '../../src/doctor/doctor.ts';
import type { Mount } from '../../src/indexer/mounts.ts';
import { createLiveHub, type Listener } from '../../src/live/hub.ts';
import { createFolderWatcher } from '../../src/live/watcher.ts';
import type { LiveServerMessage } from '../../src/live/wire.ts';
import { waitFor } from '../support/wait.ts';

const caller: Caller = { userId: 'u1', username: 'zoé', roles: [], isAdmin: false, via: 'session' };
const log = createLogger('error', {}, () => undefined);

function folders() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'burrow live mounts ')));
  const local = path.join(root, 'Local disk', 'Fotos & Filme #1');
  const share = path.join(root, 'NAS share');
  const remote = path.join(share, 'Sommer 2024 — Zoë’s “Strand” 100%');
  fs.mkdirSync(local, { recursive: true });
  fs.mkdirSync(remote, { recursive: true });
  return { root, local, share, remote };
}

for (const fsType of ['nfs4', 'cifs', 'fuse.sshfs']) {
  test(`a folder on ${fsType} gets no inotify watch and is said to be heard by the rescan; a local one is watched`, () => {
    const f = folders();
    const mounts: Mount[] = [
      { point: '/', fsType: 'ext4' },
      { point: f.share, fsType },
    ];
    const watcher = createFolderWatcher({ log, mounts: () => mounts });
    try {
      assert.is(watcher.watch(f.local), 'live');
      assert.is(watcher.size(), 1);
      assert.is(watcher.watch(f.remote), 'rescan');
      assert.is(watcher.size(), 1, 'no inotify watch on the network mount');
      // A second page on it: the same answer, still no watch.
      assert.is(watcher.watch(f.remote), 'rescan');
      assert.is(watcher.size(), 1);
    } finally {
      watcher.close();
      fs.rmSync(f.root, { recursive: true, force: true });
    }
  });
}

test("the page is told `rescan`, and hears what the index's rescan finds there", async () => {
  const f = folders();
  const mounts: Mount[] = [
    { point: '/', fsType: 'ext4' },
    { point: f.share, fsType: 'nfs' },
  ];
  const changes = createChangeSink();
  const watcher = createFolderWatcher({ log, mounts: () => mounts });
  const virtual = 'NAS/Sommer 2024 — Zoë’s “Strand” 100%';
  const resolver = {
    async resolve(_c: Caller, vp: string) {
      assert.is(vp, virtual);
      return { virtualPath: vp, realPath: f.remote, canonicalPath: f.remote, isDirectory: true, space: {} };
    },
    async resolveInside(c: Caller, vp: string) {
      return this.resolve(c, vp);
    },
    hiddenChildren: () => () => false,
  };
  const hub = createLiveHub({ resolver: resolver as any, changes, watcher, showHidden: () => false, log });
  const messages: LiveServerMessage[] = [];
  const listener: Listener = { caller: () => caller, send: (m) => messages.push(m), backlog: () => 0 };
  try {
    assert.equal(await hub.watch(listener, virtual), { type: 'watching', path: virtual, outside: 'rescan' });
    // Written on the NAS by another machine; the rescan finds it and emits it (maintenance.ts).
    fs.writeFileSync(path.join(f.remote, 'IMG 0001 + Bob.jpg'), 'jpeg');
    changes.emit({ type: 'created', path: path.join(f.remote, 'IMG 0001 + Bob.jpg'), isDirectory: false });
    const heard = await waitFor(() => messages.find((m) => m.type === 'changes'), { what: 'the rescan’s find' });
    assert.equal(heard, {
      type: 'changes',
      path: virtual,
      events: [{ type: 'created', name: 'IMG 0001 + Bob.jpg', isDirectory: false }],
    });
  } finally {
    hub.stop();
    watcher.close();
    fs.rmSync(f.root, { recursive: true, force: true });
  }
});

test("doctor's volume line says a network mount is heard by the periodic rescan; a local disk says nothing", () => {
  const f = folders();
  try {
    const mounts = () => [
      { point: '/', fsType: 'ext4' },
      { point: f.share, fsType: 'cifs' },
    ];
    assert.is(
      liveNote(f.remote, mounts),
      "; on a network mount (cifs): folders on screen update live with Burrow's own changes, others' show up at the index's periodic rescan",
    );
    assert.is(liveNote(f.local, mounts), '');
  } finally {
    fs.rmSync(f.root, { recursive: true, force: true });
  }
});

test.run();
