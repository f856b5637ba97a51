// Administration → Notifications: the destinations accounts may choose (a webhook signed per
// Standard Webhooks, an ntfy topic), a test message to each, and what could not be delivered,
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

function AddForm({ onAdded }: { onAdded: (secret: string | null) => void }) {
  const [kind, setKind] = useState<'webhook' | 'ntfy'>('webhook');
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [topic, setTopic] = useState('');
  const [token, setToken] = useState('');
  const { busy, error, run } = useSubmit();
  const submit = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      const body: ApiBody<'POST /api/admin/notify/destinations'> =
        kind === 'webhook'
          ? { kind, name: name.trim(), url: url.trim() }
          : { kind, name: name.trim(), url: url.trim(), topic: topic.trim(), ...(token ? { token } : {}) };
      const a = await api('POST /api/admin/notify/destinations', { body });
      setName('');
      setUrl('');
      setTopic('');
      setToken('');
      onAdded(a.secret);
    });
  };
  return (
    <form class="stack" onSubmit={submit} aria-label="Add a destination">
      <div class="form-grid">
        <label>
          Kind
          <select value={kind} onChange={(e) => setKind(e.currentTarget.value as 'webhook' | 'ntfy')}>
            <option value="webhook">Webhook (Home Assistant, your own program)</option>
            <option value="ntfy">ntfy topic</option>
          </select>
        </label>
        <label>
          Name
          <input
            required
            maxLength={100}
            value={name}
            placeholder={kind === 'ntfy' ? 'Phones (ntfy)' : 'Home Assistant'}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
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

const STATE_WORDS: Record<Delivery['state'], string> = { pending: 'waiting', sent: 'delivered', dead: 'not delivered' };

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
                {d.kind === 'ntfy' ? `ntfy · ${d.url} · topic ${d.topic ?? ''}` : `Webhook · ${d.url}`}
              </div>
              <div class="muted small">
                {d.enabled ? 'On' : 'Off'}
                {d.kind === 'ntfy' && d.hasSecret ? ' · with an access token' : ''} · added {formatDate(d.createdAt)}
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
