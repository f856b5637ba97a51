// Administration → Notifications: the destinations accounts may choose (a webhook signed per
// Standard Webhooks, an ntfy topic, e-mail through an SMTP server), a test message to each, and what could not be delivered,
// to send again once the receiver is mended.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { ApiAnswer, ApiBody } from '../../../src/contract.ts';
import { confirmDialog } from '../components/Dialog.tsx';
import { ErrorNote } from '../components/common.tsx';
import { useSubmit } from '../components/useSubmit.ts';
import { toast, toastError } from '../state/toasts.ts';
import { formatDate } from '../util.ts';
import './admin.css';

type Destination = ApiAnswer<'GET /api/admin/notify/destinations'>['destinations'][number];
type Delivery = ApiAnswer<'GET /api/admin/notify/deliveries'>['deliveries'][number];
type Kind = Destination['kind'];
type Security = NonNullable<Destination['smtp']>['security'];

const SECURITY_WORDS: Record<Security, string> = {
  starttls: 'STARTTLS (port 587)',
  tls: 'TLS (port 465)',
  none: 'None (a relay on this network)',
};
const SECURITY_PORT: Record<Security, number> = { starttls: 587, tls: 465, none: 25 };

function AddForm({ onAdded }: { onAdded: (secret: string | null) => void }) {
  const [kind, setKind] = useState<Kind>('webhook');
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [topic, setTopic] = useState('');
  const [token, setToken] = useState('');
  const [host, setHost] = useState('');
  const [security, setSecurity] = useState<Security>('starttls');
  const [port, setPort] = useState('587');
  const [username, setUsername] = useState('');
  const [from, setFrom] = useState('');
  const [tlsCa, setTlsCa] = useState('');
  const { busy, error, run } = useSubmit();
  const submit = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      const body: ApiBody<'POST /api/admin/notify/destinations'> =
        kind === 'push'
          ? { kind, name: name.trim() }
          : kind === 'webhook'
            ? { kind, name: name.trim(), url: url.trim() }
            : kind === 'ntfy'
              ? { kind, name: name.trim(), url: url.trim(), topic: topic.trim(), ...(token ? { token } : {}) }
              : {
                  kind,
                  name: name.trim(),
                  // The messages' links (unsubscribe, settings) point to the address this page is seen at.
                  url: location.origin,
                  host: host.trim(),
                  port: Number(port),
                  security,
                  from: from.trim(),
                  ...(username.trim() ? { username: username.trim(), password: token } : {}),
                  ...(tlsCa.trim() ? { tlsCa: tlsCa.trim() } : {}),
                };
      const a = await api('POST /api/admin/notify/destinations', { body });
      setName('');
      setUrl('');
      setTopic('');
      setToken('');
      setHost('');
      setUsername('');
      setTlsCa('');
      onAdded(a.secret);
    });
  };
  return (
    <form class="stack" onSubmit={submit} aria-label="Add a destination">
      <div class="form-grid">
        <label>
          Kind
          <select value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
            <option value="webhook">Webhook (Home Assistant, your own program)</option>
            <option value="ntfy">ntfy topic</option>
            <option value="email">E-mail (an SMTP server)</option>
            <option value="push">Browser and phone notifications (Web Push)</option>
          </select>
        </label>
        <label>
          Name
          <input
            required
            maxLength={100}
            value={name}
            placeholder={kind === 'ntfy' ? 'Phones (ntfy)' : kind === 'email' ? 'E-mail' : 'Home Assistant'}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        {kind === 'email' && (
          <>
            <label>
              SMTP server
              <input
                required
                value={host}
                placeholder="smtp.example.org"
                autocomplete="off"
                onInput={(e) => setHost(e.currentTarget.value)}
              />
            </label>
            <label>
              Encryption
              <select
                value={security}
                onChange={(e) => {
                  const next = e.currentTarget.value as Security;
                  if (port === String(SECURITY_PORT[security])) setPort(String(SECURITY_PORT[next]));
                  setSecurity(next);
                }}
              >
                {(Object.keys(SECURITY_WORDS) as Security[]).map((k) => (
                  <option key={k} value={k}>
                    {SECURITY_WORDS[k]}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Port
              <input
                required
                type="number"
                min={1}
                max={65535}
                value={port}
                onInput={(e) => setPort(e.currentTarget.value)}
              />
            </label>
            <label>
              Sender address
              <input
                required
                type="email"
                value={from}
                placeholder="burrow@example.org"
                onInput={(e) => setFrom(e.currentTarget.value)}
              />
            </label>
            {security !== 'none' && (
              <label>
                User name (optional)
                <input autocomplete="off" value={username} onInput={(e) => setUsername(e.currentTarget.value)} />
              </label>
            )}
            {security !== 'none' && username.trim() && (
              <label>
                Password
                <input
                  type="password"
                  autocomplete="new-password"
                  value={token}
                  onInput={(e) => setToken(e.currentTarget.value)}
                />
              </label>
            )}
            {security !== 'none' && (
              <label class="span-all">
                Certificate authority to trust (optional, PEM: for a server with a certificate of its own)
                <textarea rows={3} value={tlsCa} onInput={(e) => setTlsCa(e.currentTarget.value)} />
              </label>
            )}
          </>
        )}
        {kind !== 'email' && kind !== 'push' && (
          <label>
            {kind === 'ntfy' ? 'ntfy server' : 'Address'}
            <input
              required
              type="url"
              value={url}
              placeholder={kind === 'ntfy' ? 'http://ntfy.lan' : 'http://homeassistant.local:8123/api/webhook/burrow'}
              onInput={(e) => setUrl(e.currentTarget.value)}
            />
          </label>
        )}
        {kind === 'ntfy' && (
          <label>
            Topic
            <input
              required
              pattern="[-_A-Za-z0-9]{1,64}"
              value={topic}
              placeholder="burrow"
              onInput={(e) => setTopic(e.currentTarget.value)}
            />
          </label>
        )}
        {kind === 'ntfy' && (
          <label>
            Access token (optional)
            <input type="password" autocomplete="off" value={token} onInput={(e) => setToken(e.currentTarget.value)} />
          </label>
        )}
      </div>
      <ErrorNote error={error} />
      <div>
        <button class="primary" disabled={busy}>
          Add destination
        </button>
      </div>
    </form>
  );
}

const STATE_WORDS: Record<Delivery['state'], string> = {
  held: 'held for a digest',
  pending: 'waiting',
  sent: 'delivered',
  dead: 'not delivered',
  digested: 'delivered in a digest',
};

export function Notifications() {
  const [destinations, setDestinations] = useState<Destination[] | null>(null);
  const [dead, setDead] = useState<Delivery[]>([]);
  const [secret, setSecret] = useState<string | null>(null);
  const [tests, setTests] = useState<Record<string, Delivery>>({});
  const [error, setError] = useState<unknown>(null);
  const load = () =>
    Promise.all([
      api('GET /api/admin/notify/destinations'),
      api('GET /api/admin/notify/deliveries', { query: { state: 'dead' } }),
    ]).then(([d, l]) => {
      setDestinations(d.destinations);
      setDead(l.deliveries);
      setError(null);
    }, setError);
  useEffect(() => {
    void load();
  }, []);

  /** Follows a test message until it is delivered or refused (or has waited a while). */
  const follow = async (first: Delivery) => {
    let d = first;
    setTests((t) => ({ ...t, [d.destinationId]: d }));
    for (let i = 0; i < 40 && d.state === 'pending' && d.attempts === 0; i++) {
      await new Promise((r) => setTimeout(r, 500));
      d = (await api('GET /api/admin/notify/deliveries/:id', { params: { id: d.id } })).delivery;
      setTests((t) => ({ ...t, [d.destinationId]: d }));
    }
    if (d.state === 'dead') void load();
  };
  const sendTest = (d: Destination) =>
    api('POST /api/admin/notify/destinations/:id/test', { params: { id: d.id } }).then(
      (a) => void follow(a.delivery),
      (err) => toastError(err),
    );
  const setEnabled = (d: Destination, enabled: boolean) =>
    api('PATCH /api/admin/notify/destinations/:id', { params: { id: d.id }, body: { enabled } }).then(load, (err) =>
      toastError(err),
    );
  const remove = async (d: Destination) => {
    const sure = await confirmDialog({
      title: `Remove “${d.name}”?`,
      body: 'Accounts that chose it are no longer notified there, and what was still to be sent to it is dropped.',
      confirm: 'Remove',
      danger: true,
    });
    if (!sure) return;
    api('DELETE /api/admin/notify/destinations/:id', { params: { id: d.id } }).then(load, (err) => toastError(err));
  };
  const sendAgain = (d: Delivery) =>
    api('POST /api/admin/notify/deliveries/:id/retry', { params: { id: d.id } }).then(
      () => {
        toast('Sent again');
        void load();
      },
      (err) => toastError(err),
    );

  const testWords = (t: Delivery | undefined) =>
    !t
      ? null
      : t.state === 'sent'
        ? `Test delivered (answer ${t.lastStatus ?? ''})`
        : t.state === 'dead'
          ? `Test not delivered: ${t.lastError ?? ''}`
          : t.attempts > 0
            ? `Test not delivered yet: ${t.lastError ?? ''}; trying again`
            : 'Sending the test…';

  return (
    <div class="stack">
      <p class="muted small">
        Accounts choose among these destinations in Settings → Notifications. Messages are sent in the background and
        tried again when a receiver is away; a receiver de-duplicates by the webhook-id header. Webhooks are signed per
        Standard Webhooks; the body is described under “webhooks” in /api/openapi.json.
      </p>
      <ul class="results host-volumes" aria-label="Notification destinations">
        {destinations?.map((d) => (
          <li key={d.id}>
            <div class="volume-what">
              <strong dir="auto">{d.name}</strong>
              <div class="where" dir="auto">
                {d.kind === 'ntfy'
                  ? `ntfy · ${d.url} · topic ${d.topic ?? ''}`
                  : d.kind === 'email'
                    ? `E-mail · ${d.smtp?.host ?? ''}:${d.smtp?.port ?? ''} · ${SECURITY_WORDS[d.smtp?.security ?? 'starttls']} · from ${d.smtp?.from ?? ''}`
                    : `Webhook · ${d.url}`}
              </div>
              <div class="muted small">
                {d.enabled ? 'On' : 'Off'}
                {d.kind === 'ntfy' && d.hasSecret ? ' · with an access token' : ''}
                {d.kind === 'email' && d.smtp?.username ? ` · signs in as ${d.smtp.username}` : ''}
                {d.kind === 'email' ? ' · the test goes to your account’s e-mail address' : ''} · added{' '}
                {formatDate(d.createdAt)}
              </div>
              {tests[d.id] && (
                <div class="small" role="status">
                  {testWords(tests[d.id])}
                </div>
              )}
            </div>
            <div class="volume-actions">
              <button type="button" class="small" onClick={() => void sendTest(d)}>
                Send a test
              </button>
              <button type="button" class="small" onClick={() => void setEnabled(d, !d.enabled)}>
                {d.enabled ? 'Turn off' : 'Turn on'}
              </button>
              <button type="button" class="small danger" onClick={() => void remove(d)}>
                Remove
              </button>
            </div>
          </li>
        ))}
        {destinations && !destinations.length && <li class="muted">No destination yet.</li>}
      </ul>
      {secret && (
        <div class="warning stack" role="alert">
          <strong>
            Copy the webhook’s signing secret now: give it to the receiver to check signatures. It is not shown again.
          </strong>
          <div class="secret">
            <code data-testid="webhook-secret">{secret}</code>
          </div>
          <div>
            <button type="button" onClick={() => setSecret(null)}>
              I have stored it
            </button>
          </div>
        </div>
      )}
      <h2>Add a destination</h2>
      <AddForm
        onAdded={(s) => {
          setSecret(s);
          toast('Destination added');
          void load();
        }}
      />
      <h2>Not delivered</h2>
      <ul class="results" aria-label="Undelivered messages">
        {dead.map((d) => (
          <li key={d.id}>
            <div class="grow">
              <strong dir="auto">{d.title}</strong>
              <div class="muted small" dir="auto">
                to {d.destinationName ?? 'a removed destination'} · {STATE_WORDS[d.state]} after {d.attempts}{' '}
                {d.attempts === 1 ? 'attempt' : 'attempts'}: {d.lastError ?? ''}
                {d.doneAt ? ` · ${formatDate(d.doneAt)}` : ''}
              </div>
            </div>
            <button type="button" class="small" onClick={() => void sendAgain(d)}>
              Send again
            </button>
          </li>
        ))}
        {!dead.length && <li class="muted">Everything was delivered.</li>}
      </ul>
      <ErrorNote error={error} />
    </div>
  );
}
