// A household that hears of the server's own events on every destination a person has: a real
// SMTP server (STARTTLS on a test authority), the Web Push stand-in that decrypts with the
// subscription's keys, an ntfy stand-in — and the bell. One server with a clock the test moves
// (NOTIFY_CLOCK_FILE), an administrator and alice subscribed to push, bob with no subscription,
// all three asking for the given kinds on every destination; a host folder made beside it for a
// volume the test adds. Shared by the files that check which event tells whom, and once.
import fs from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { createUser, setupAdmin } from './auth.ts';
import type { Client } from './client.ts';
import { startPushService, type PushService } from './push-service.ts';
import { startReceiver, type Receiver } from './receivers.ts';
import { makeDirs, removeDirs, startServer, type TestServer } from './server.ts';
import { decodeWords, mailDestination, startSmtp, type SmtpReceiver } from './smtp.ts';
import { waitFor } from './wait.ts';

export const ADMIN_MAIL = 'hausmeister+burrow@example.org';
export const ALICE_MAIL = 'alice.mueller+fotos@example.org';

export interface NoticeWorld {
  s: TestServer;
  smtp: SmtpReceiver;
  push: PushService;
  ntfy: Receiver;
  admin: Client;
  alice: Client;
  bob: Client;
  /** A host folder (with a subfolder) for a volume the test adds; not yet a volume. */
  hostFolder: string;
  setClock(iso: string): void;
  inbox(c: Client): Promise<{ items: any[]; unread: number }>;
  /** The same message on each destination and in the bell, once each; the text as the bell shows it. */
  toldOnce(who: Client, mail: string, title: string): Promise<string>;
  /** Everything the stand-ins received so far: a later step proves nothing more came. */
  counts(): { mails: number; pushes: number; ntfy: number };
  /**
   * Every event raised so far has been fanned out (its bell rows written): bob makes a folder,
   * an event after them all, and the sender has fanned it out.
   */
  settled(): Promise<void>;
  /** The volume check that ran at `iso` (by the moved clock), as its log line says. */
  checkedAt(iso: string): Promise<any>;
  close(): Promise<void>;
}

export async function startNoticeWorld(kinds: string[]): Promise<NoticeWorld> {
  const [smtp, push, ntfy] = await Promise.all([startSmtp(), startPushService(), startReceiver('ntfy')]);
  const dirs = makeDirs();
  const clockFile = path.join(dirs.root, 'now');
  const setClock = (iso: string) => fs.writeFileSync(clockFile, iso);
  setClock('2026-07-14T09:00:00Z');
  const hostFolder = path.join(dirs.root, 'NAS Platte – Familie');
  fs.mkdirSync(path.join(hostFolder, 'Hochzeit 1987'), { recursive: true });
  const s = await startServer({
    dirs,
    volumes: ['Files'],
    env: {
      PUSH_SERVICES: push.origin,
      NOTIFY_CLOCK_FILE: clockFile,
      USER_DIR_ENABLED: 'true',
      FOLDER_SIZE_MODE: 'full',
      FOLDER_SIZE_FLUSH_MS: '20',
      UPLOAD_CHUNKED_ENABLED: 'true',
    },
  });
  const admin = await setupAdmin(s, { email: ADMIN_MAIL });
  const alice = await createUser(admin, s, { username: 'alice', password: 'alice-password-1', email: ALICE_MAIL });
  const bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
  const add = async (body: Record<string, unknown>) => {
    const r = await admin.post('/api/admin/notify/destinations', body);
    assert.is(r.status, 201, r.text);
    return r.json.destination.id as string;
  };
  const destinations = [
    await add(mailDestination(smtp, s.url)),
    await add({ kind: 'push', name: 'Browser & Telefon' }),
    await add({ kind: 'ntfy', name: 'ntfy im Keller', url: ntfy.url, topic: 'familie' }),
  ];
  for (const [c, name] of [
    [admin, 'admin laptop'],
    [alice, 'alice phone'],
  ] as const) {
    const sub = await c.post('/api/notify/push/subscriptions', push.subscriber(name).subscription);
    assert.is(sub.status, 201, sub.text);
  }
  for (const c of [admin, alice, bob]) {
    const r = await c.put('/api/notify/prefs', { kinds, destinations, folders: [] });
    assert.is(r.status, 200, r.text);
  }

  const inbox = async (c: Client) => (await c.get('/api/notify/inbox')).json as { items: any[]; unread: number };
  const mailsTo = (to: string, subject: string) =>
    smtp.mails.filter((m) => m.to.includes(to) && decodeWords(m.headers.get('subject') ?? '') === subject);
  const pushes = (title: string) => push.messages.filter((m) => m.payload?.title === title);
  const ntfys = (title: string) => ntfy.requests.filter((r) => r.json?.title === title);
  const fannedOut = (action: string) =>
    s.logs.filter((l) => l.msg === 'notification event fanned out' && l.action === action).length;
  let folders = 0;

  return {
    s,
    smtp,
    push,
    ntfy,
    admin,
    alice,
    bob,
    hostFolder,
    setClock,
    inbox,
    async toldOnce(who, mail, title) {
      await waitFor(() => mailsTo(mail, title).length && pushes(title).length && ntfys(title).length, {
        what: `“${title}” by mail, push and ntfy`,
        seen: () => ({
          mails: smtp.mails.map((m) => decodeWords(m.headers.get('subject') ?? '')),
          pushes: push.messages.map((m) => m.payload?.title),
          ntfy: ntfy.requests.map((r) => r.json?.title),
        }),
      });
      const items = (await inbox(who)).items.filter((i) => i.title === title);
      assert.is(items.length, 1, JSON.stringify(items));
      assert.is(mailsTo(mail, title).length, 1);
      assert.is(pushes(title).length, 1);
      assert.is(ntfys(title).length, 1);
      assert.ok(mailsTo(mail, title)[0]!.text.includes(items[0].text), mailsTo(mail, title)[0]!.text);
      assert.is(pushes(title)[0]!.payload.body, items[0].text);
      return items[0].text as string;
    },
    counts: () => ({ mails: smtp.mails.length, pushes: push.messages.length, ntfy: ntfy.requests.length }),
    async settled() {
      const n = fannedOut('files.create-folder');
      const r = await bob.post('/api/files/folder', { path: 'Files', name: `Notizen #${++folders} – ça va?` });
      assert.is(r.status, 201, r.text);
      await waitFor(() => fannedOut('files.create-folder'), { what: 'bob’s folder fanned out', until: (k) => k > n });
    },
    checkedAt: (iso) =>
      waitFor(() => s.logs.find((l) => l.msg === 'volumes checked' && l.at === iso), {
        what: `the volume check at ${iso}`,
      }),
    async close() {
      await s.close();
      await Promise.all([smtp.close(), push.close(), ntfy.close()]);
      removeDirs(s.dirs);
    },
  };
}
