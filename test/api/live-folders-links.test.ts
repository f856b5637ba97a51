// Live folders (issue 30) and share links: a link's holder reaches the shared folder through
// /api/share/<token>/… only, and never hears it change. Whatever their requests carry — the
// password link's visitor cookie, the taker cookie, the link token itself as a bearer, the
// link's own path — the upgrade at /api/live is refused with the error envelope, while the
// owner's page hears the same change; a signed-in account that names the link's space
// (`share/<token>`) without having unlocked it is answered `closed`, and hears nothing either.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type WebSocket from 'ws';
import { createUser, setupAdmin } from '../support/auth.ts';
import { Client } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { liveSocket, refusal } from '../support/live.ts';
import { waitFor } from '../support/wait.ts';

let s: TestServer;
let admin: Client;
let alice: Client;
let bob: Client;

const FOLDER = 'Files/Hochzeit & "Fête" #1 – 50%';
const FILE = 'Ansprache (Entwurf) ☕.txt';

interface Live {
  ws: WebSocket;
  messages: any[];
  /** Sends a message and waits for the first answer after it that `match` accepts. */
  ask(message: unknown, match: (m: any) => boolean): Promise<any>;
}

function connect(headers: Record<string, string>, at = '/api/live'): Promise<Live> {
  const { ws, messages, opened } = liveSocket(s.url, { headers, at });
  const live: Live = {
    ws,
    messages,
    ask(message, match) {
      const from = messages.length;
      ws.send(JSON.stringify(message));
      return waitFor(() => messages.slice(from).find(match), { what: `the answer to ${JSON.stringify(message)}` });
    },
  };
  return opened.then(() => live);
}

test.before(async () => {
  s = await startServer({});
  admin = await setupAdmin(s);
  alice = await createUser(admin, s, { username: 'alice', password: 'alice-password-1' });
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
  fs.mkdirSync(path.join(s.dirs.volumes, FOLDER), { recursive: true });
  fs.writeFileSync(path.join(s.dirs.volumes, FOLDER, FILE), 'Liebe Gäste');
});

test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test("a link's holder is refused the live socket and hears nothing of the shared folder", async () => {
  const created = await alice.post('/api/shares', {
    sourcePath: FOLDER,
    sharingType: 'anyone',
    password: 'open sesame',
  });
  assert.is(created.status, 201, created.text);
  const t: string = created.json.shareToken;

  // The holder, as a browser holds the link: unlocked with the password, a file taken.
  const holder = new Client(s.url);
  assert.is((await holder.post(`/api/share/${t}/access`, { password: 'open sesame' })).status, 204);
  const listing = await holder.get(`/api/share/${t}/browse/`);
  assert.is(listing.status, 200, listing.text);
  assert.equal(
    listing.json.items.map((i: any) => i.name),
    [FILE],
  );
  const taken = await holder.get(`/api/share/${t}/file?path=${encodeURIComponent(FILE)}`);
  assert.is(taken.status, 200, taken.text);
  assert.ok(holder.cookies.has('burrow_link'), 'the visitor cookie is held');

  // Everything a holder's requests carry, at the live socket: refused, with the envelope.
  const cookies = await refusal(connect({ cookie: holder.cookieHeader }));
  assert.is(cookies.status, 401);
  assert.is(cookies.body.error.code, 'AUTH_REQUIRED');
  assert.type(cookies.body.error.requestId, 'string');
  const bearer = await refusal(connect({ cookie: holder.cookieHeader, authorization: `Bearer ${t}` }));
  assert.is(bearer.status, 403);
  assert.is(bearer.body.error.code, 'AUTH_TOKEN_NOT_ALLOWED');
  const ownPath = await refusal(connect({ cookie: holder.cookieHeader }, `/api/share/${t}/live`));
  assert.is(ownPath.status, 404);
  const query = await refusal(connect({ cookie: holder.cookieHeader }, `/api/live?token=${t}`));
  assert.is(query.status, 401);

  // A signed-in account holding the address of a password link it has not unlocked: the
  // link's space is not heard.
  const owner = await connect({ cookie: alice.cookieHeader });
  assert.equal(await owner.ask({ type: 'watch', path: FOLDER }, (m) => m.type === 'watching' || m.type === 'closed'), {
    type: 'watching',
    path: FOLDER,
    outside: 'live',
  });
  const other = await connect({ cookie: bob.cookieHeader });
  const answer = await other.ask(
    { type: 'watch', path: `share/${t}` },
    (m) => m.type === 'closed' || m.type === 'watching',
  );
  assert.is(answer.type, 'closed');
  assert.is(answer.code, 'LINK_PASSWORD_REQUIRED');

  // The folder changes: its owner's page hears it; nothing of it reaches the other socket.
  const fd = new FormData();
  fd.append('uploadTo', FOLDER);
  fd.append('filedata', new Blob([Buffer.from('Tischordnung')]), 'Tischordnung + Gäste.txt');
  assert.is((await alice.post('/api/upload', fd)).status, 201);
  await waitFor(
    () =>
      owner.messages.find(
        (m) =>
          m.type === 'changes' &&
          m.events.some((e: any) => e.type === 'created' && e.name === 'Tischordnung + Gäste.txt'),
      ),
    { what: "the owner's page hears the upload", seen: () => owner.messages },
  );
  await other.ask({ type: 'ping' }, (m) => m.type === 'pong');
  assert.equal(
    other.messages.filter((m) => m.type !== 'closed' && m.type !== 'pong'),
    [],
  );
  owner.ws.close();
  other.ws.close();
});

test.run();
