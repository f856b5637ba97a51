// The live-folder hub over a fake resolver and watcher and the real change sink: Burrow's rename
// is heard once (the watcher's two halves of it are its echo), a burst above MAX_PENDING in one
// window is one `reload`, a change deep inside moves the size of the entry on the way, and a
// listener whose caller went (signed out) gets `closed` instead of the changes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createChangeSink } from '../../src/changes.ts';
import type { Caller } from '../../src/core/caller.ts';
import { createLiveHub, MAX_PENDING, type Listener } from '../../src/live/hub.ts';
import type { FolderWatcher, WatchedEvent } from '../../src/live/watcher.ts';
import type { LiveServerMessage } from '../../src/live/wire.ts';
import { waitFor } from '../support/wait.ts';

const ROOT = '/srv/volumes';
const caller: Caller = { userId: 'u1', username: 'zoé', roles: [], isAdmin: false, via: 'session' };

function setup() {
  const changes = createChangeSink();
  let emit: (dir: string, e: WatchedEvent) => void = () => {};
  const watcher: FolderWatcher = {
    watch: () => 'live',
    unwatch: () => {},
    onEvent: (l) => (emit = l),
    size: () => 0,
    close: () => {},
  };
  const resolver = {
    async resolve(_c: Caller, vp: string) {
      return {
        virtualPath: vp,
        realPath: `${ROOT}/${vp}`,
        canonicalPath: `${ROOT}/${vp}`,
        isDirectory: true,
        space: {},
      };
    },
    async resolveInside(c: Caller, vp: string) {
      return this.resolve(c, vp);
    },
    hiddenChildren: () => () => false,
  };
  const hub = createLiveHub({
    resolver: resolver as any,
    changes,
    watcher,
    showHidden: () => false,
    log: console as any,
  });
  let who: Caller | null = caller;
  const messages: LiveServerMessage[] = [];
  const listener: Listener = { caller: () => who, send: (m) => messages.push(m), backlog: () => 0 };
  return {
    hub,
    changes,
    emit: (d: string, e: WatchedEvent) => emit(d, e),
    listener,
    messages,
    signOut: () => (who = null),
  };
}

const FOLDER = 'Photos/Sommer 2024 & Herbst';
const DIR = `${ROOT}/${FOLDER}`;

test("Burrow's rename is heard once, not as the watcher's delete and create", async () => {
  const t = setup();
  await t.hub.watch(t.listener, FOLDER);
  t.changes.emit({ type: 'moved', from: `${DIR}/IMG 1.jpg`, to: `${DIR}/Strand #1.jpg`, isDirectory: false });
  t.emit(DIR, { type: 'deleted', name: 'IMG 1.jpg' });
  t.emit(DIR, { type: 'created', name: 'Strand #1.jpg', isDirectory: false });
  const m = await waitFor(() => t.messages.find((x) => x.type === 'changes'), { what: 'the changes' });
  assert.equal(m, {
    type: 'changes',
    path: FOLDER,
    events: [{ type: 'renamed', name: 'IMG 1.jpg', to: 'Strand #1.jpg', isDirectory: false }],
  });
  t.hub.stop();
});

test('a burst above the window’s limit is one reload', async () => {
  const t = setup();
  await t.hub.watch(t.listener, FOLDER);
  for (let i = 0; i <= MAX_PENDING; i++) t.emit(DIR, { type: 'created', name: `IMG_${i}.jpg`, isDirectory: false });
  const m = await waitFor(() => t.messages.find((x) => x.type !== 'watching'), { what: 'a message' });
  assert.equal(m, { type: 'reload', path: FOLDER });
  assert.is(t.messages.length, 1);
  t.hub.stop();
});

test('a write deep inside moves the size of the sub-folder on screen', async () => {
  const t = setup();
  await t.hub.watch(t.listener, FOLDER);
  t.changes.emit({ type: 'created', path: `${DIR}/Italien/Rom/Forum.jpg`, isDirectory: false });
  const m = await waitFor(() => t.messages.find((x) => x.type === 'changes'), { what: 'the changes' });
  assert.equal(m, { type: 'changes', path: FOLDER, events: [{ type: 'size', name: 'Italien', isDirectory: true }] });
  t.hub.stop();
});

test('a listener signed out meanwhile gets closed, not the changes', async () => {
  const t = setup();
  await t.hub.watch(t.listener, FOLDER);
  t.signOut();
  t.emit(DIR, { type: 'created', name: 'secret.pdf', isDirectory: false });
  const m = await waitFor(() => t.messages.find((x) => x.type !== 'watching'), { what: 'a message' });
  assert.is(m.type, 'closed');
  assert.not.ok(t.messages.some((x) => x.type === 'changes'));
  t.hub.stop();
});

test.run();
