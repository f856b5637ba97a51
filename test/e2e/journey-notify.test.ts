// Notifications, as an administrator meets them (test/e2e/journey/harness.ts: the executable in
// Chromium at 1366×768 and at 390×844 with touch): Administration → Notifications adds a webhook
// (its signing secret shown once), "Send a test" says it was delivered; Settings → Notifications
// chooses it, what to be told of and a folder to watch (picked in the folder picker); a
// housemate's upload there reaches the webhook receiver on loopback, signed (checked with the
// Standard Webhooks reference library), naming the file as the administrator sees it. Then the
// schedule: a time zone, quiet hours and a daily digest for an ntfy topic, chosen in the form and
// read back from GET /api/notify/prefs; quiet hours that end when they begin are refused by the
// server, whose words the page shows, and the kept choices stay as they were. Last, a message a
// receiver refused (410) is listed under "Not delivered"; "Send again" delivers it with its id.
import * as assert from 'uvu/assert';
import { Client } from '../support/client.ts';
import { startReceiver, type Receiver } from '../support/receivers.ts';
import { HOME, journey } from './journey/harness.ts';

const j = journey(import.meta.url);

const HOOK_NAME = 'Home Assistant – Küche & Flur';
const PICTURE = 'Sunset over the bay – été #3 (100%).txt';
let hook: Receiver | undefined;
let destinationId = '';

j.step('Administration → Notifications: a webhook added, its secret shown once, a test delivered', async (s) => {
  const { page } = s;
  await hook?.close();
  hook = await startReceiver('webhook');
  await s.goto('/admin/notifications');
  const form = page.getByRole('form', { name: 'Add a destination' });
  await form.getByLabel('Name').fill(HOOK_NAME);
  await form.getByLabel('Address').fill(hook.url);
  await s.tap(form.getByRole('button', { name: 'Add destination' }));
  const secret = (await page.getByTestId('webhook-secret').innerText()).trim();
  assert.match(secret, /^whsec_/);
  hook.secret = secret;
  await s.tap(page.getByRole('button', { name: 'I have stored it' }));
  const list = page.getByRole('list', { name: 'Notification destinations' });
  const row = list.getByRole('listitem').filter({ hasText: HOOK_NAME });
  await row.getByText(`Webhook · ${hook.url}`).waitFor();
  await s.tap(row.getByRole('button', { name: 'Send a test' }));
  await row.getByText('Test delivered (answer 200)').waitFor();

  // At the server and the receiver: one destination, the secret nowhere in its answer, one test message, signed.
  const answer = await s.api('GET', '/api/admin/notify/destinations');
  assert.is(answer.json.destinations.length, 1);
  assert.not.ok(answer.text.includes(secret));
  destinationId = answer.json.destinations[0].id;
  const tests = [...hook.unique.values()].filter((b) => b.kind === 'test');
  assert.is(tests.length, 1);
  assert.ok(hook.requests.every((r) => r.verified));
});

j.step(
  'Settings → Notifications: the webhook chosen, a folder watched; a housemate’s upload there arrives signed',
  async (s) => {
    const { page } = s;
    const receiver = hook!;
    await s.goto('/settings/notifications');
    const prefs = page.getByRole('form', { name: 'Notifications' });
    await s.tap(prefs.getByRole('checkbox', { name: HOOK_NAME }));
    await s.tap(prefs.getByRole('checkbox', { name: 'Files added to a folder I watch' }));
    await s.tap(prefs.getByRole('button', { name: 'Watch a folder…' }));
    const picker = page.getByRole('dialog', { name: 'Watch a folder' });
    await s.tap(picker.getByRole('button', { name: HOME, exact: true }));
    await s.tap(picker.getByRole('button', { name: 'Photos', exact: true }));
    await s.tap(picker.getByRole('button', { name: 'Watch this folder' }));
    await prefs.getByRole('list', { name: 'Watched folders' }).getByText(`${HOME}/Photos`).waitFor();
    await s.tap(prefs.getByRole('button', { name: 'Save' }));
    await s.eventually('the choices kept at the server', async () => {
      // The choices this page made; the schedule's fields (quiet hours, digests) keep their defaults.
      const { kinds, destinations, folders, emailOff } = (await s.api('GET', '/api/notify/prefs')).json.prefs;
      return (
        JSON.stringify({ kinds, destinations, folders, emailOff }) ===
        JSON.stringify({
          kinds: ['folder.uploaded'],
          destinations: [destinationId],
          folders: [`${HOME}/Photos`],
          emailOff: [],
        })
      );
    });

    // A housemate adds a file to the watched folder from her own session.
    const created = await s.api('POST', '/api/users', {
      email: 'lena@example.org',
      username: 'lena',
      password: 'lenas own long password',
      roles: [],
    });
    assert.is(created.status, 201, created.text);
    const lena = new Client(s.server.url);
    assert.is(
      (await lena.post('/api/auth/login', { identifier: 'lena', password: 'lenas own long password' })).status,
      200,
    );
    const f = new FormData();
    f.append('uploadTo', `${HOME}/Photos`);
    f.append('filedata', new Blob(['the bay at dusk']), PICTURE);
    const up = await lena.post('/api/upload', f);
    assert.is(up.status, 201, up.text);
    await s.eventually('the upload’s message at the receiver', () =>
      [...receiver.unique.values()].some((b) => b.kind === 'folder.uploaded'),
    );
    const [body] = [...receiver.unique.values()].filter((b) => b.kind === 'folder.uploaded');
    assert.equal(body.paths, [`${HOME}/Photos/${PICTURE}`]);
    assert.is(body.actor.username, 'lena');
    assert.is(body.recipient.username, 'ada');
    assert.ok(receiver.requests.every((r) => r.verified));
    await receiver.close();
    hook = undefined;
  },
  { needs: ['Administration → Notifications: a webhook added, its secret shown once, a test delivered'] },
);

const NTFY_NAME = 'ntfy im Flur – Küche & Keller';
const ZONE = 'America/St_Johns';

j.step(
  'Settings → Notifications: a time zone, quiet hours and a daily digest kept at the server; a refused value shows the server’s error and changes nothing',
  async (s) => {
    const { page } = s;
    const added = await s.api('POST', '/api/admin/notify/destinations', {
      kind: 'ntfy',
      name: NTFY_NAME,
      url: 'http://127.0.0.1:9/',
      topic: 'flur',
    });
    assert.is(added.status, 201, added.text);
    const ntfyId = added.json.destination.id as string;
    await s.goto('/settings/notifications');
    const prefs = page.getByRole('form', { name: 'Notifications' });
    await s.tap(prefs.getByRole('checkbox', { name: NTFY_NAME }));
    await s.tap(prefs.getByRole('checkbox', { name: 'Quiet hours' }));
    await prefs.getByRole('textbox', { name: 'From', exact: true }).fill('23:30');
    await prefs.getByRole('textbox', { name: 'to', exact: true }).fill('06:45');
    await prefs.getByRole('combobox', { name: NTFY_NAME }).selectOption('daily');
    await prefs.getByRole('textbox', { name: 'Daily digest at' }).fill('07:15');
    await prefs.getByRole('combobox', { name: 'Time zone' }).selectOption(ZONE);
    await s.tap(prefs.getByRole('button', { name: 'Save' }));
    const wanted = {
      timeZone: ZONE,
      quietHours: { from: '23:30', to: '06:45' },
      dailyAt: '07:15',
      mode: 'daily',
    };
    const kept = async () => {
      const p = (await s.api('GET', '/api/notify/prefs')).json.prefs;
      return JSON.stringify({
        timeZone: p.timeZone,
        quietHours: p.quietHours,
        dailyAt: p.dailyAt,
        mode: p.delivery.destinations[ntfyId],
      });
    };
    await s.eventually('the schedule kept at the server', async () => (await kept()) === JSON.stringify(wanted));
    const before = (await s.api('GET', '/api/notify/prefs')).json.prefs;

    // Quiet hours that end when they begin: the server refuses them, the page says its words.
    await prefs.getByRole('textbox', { name: 'From', exact: true }).fill('06:45');
    await s.tap(prefs.getByRole('button', { name: 'Save' }));
    const refused = await s.api('PUT', '/api/notify/prefs', { ...before, quietHours: { from: '06:45', to: '06:45' } });
    assert.is(refused.status, 400, refused.text);
    const alert = prefs.getByRole('alert');
    await alert.getByText(refused.json.error.message).waitFor();
    assert.equal((await s.api('GET', '/api/notify/prefs')).json.prefs, before);
  },
);

const GONE_NAME = 'Alter Server – Dachboden #2';
j.step(
  'Administration → Notifications: a message the receiver refused is listed, and “Send again” delivers it with the same id',
  async (s) => {
    const { page } = s;
    const receiver = await startReceiver('webhook');
    try {
      receiver.behaviour = { kind: 'status', status: 410 };
      const added = await s.api('POST', '/api/admin/notify/destinations', {
        kind: 'webhook',
        name: GONE_NAME,
        url: receiver.url,
      });
      assert.is(added.status, 201, added.text);
      receiver.secret = added.json.secret;
      const sent = await s.api('POST', `/api/admin/notify/destinations/${added.json.destination.id}/test`, {});
      assert.is(sent.status, 202, sent.text);
      const id = sent.json.delivery.id as string;
      // A 410 is a refusal: dead-lettered at the first attempt.
      await s.eventually('the refused message dead-lettered', async () =>
        (await s.api('GET', '/api/admin/notify/deliveries?state=dead')).json.deliveries.some((d: any) => d.id === id),
      );
      await s.goto('/admin/notifications');
      const undelivered = page.getByRole('list', { name: 'Undelivered messages' });
      const row = undelivered.getByRole('listitem').filter({ hasText: GONE_NAME });
      await row.getByText('Test notification').waitFor();
      receiver.behaviour = { kind: 'ok' };
      await s.tap(row.getByRole('button', { name: 'Send again' }));
      await s.eventually('the message sent again at the receiver', () => receiver.unique.has(id));
      // The same id both times, signed both times; the list no longer holds it.
      const attempts = receiver.requests.filter((r) => r.json?.id === id);
      assert.is(attempts.length, 2);
      assert.ok(attempts.every((r) => r.verified));
      await row.waitFor({ state: 'detached' });
    } finally {
      await receiver.close();
    }
  },
);

j.run();
