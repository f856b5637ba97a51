// Wire shapes of notifications: destinations (the administrator's), each account's choices,
// deliveries (the dead-letter view), and the versioned JSON body a webhook receives.
import { z } from 'zod';
import { isTimeZone } from './schedule.ts';

export const EVENT_KINDS = [
  'files.arrived',
  'folder.uploaded',
  'folder.changed',
  'folder.deleted',
  'signin.new-address',
  'signin.new-device',
  'signin.lockout',
  'signin.second-factor-failed',
  'share.received',
  'link.opened',
  'link.downloaded',
  'quota.nearly-full',
  'volume.missing',
  'volume.read-only',
  'upload.failed',
  'job.failed',
  'test',
  'digest',
] as const;
export const eventKind = z.enum(EVENT_KINDS);
export type EventKind = z.infer<typeof eventKind>;
/**
 * The kinds an account may choose ('test' is sent by the administrator's button only; a
 * 'digest' gathers the messages held by quiet hours or an hourly or daily choice).
 */
export const chosenKind = z.enum(
  EVENT_KINDS.filter((k) => k !== 'test' && k !== 'digest') as [EventKind, ...EventKind[]],
);
export type ChosenKind = Exclude<EventKind, 'test' | 'digest'>;

/** One event inside a digest. */
export const digestItem = z.object({
  eventId: z.string(),
  kind: eventKind,
  time: z.string(),
  title: z.string(),
  text: z.string(),
  paths: z.array(z.string()),
});
export type DigestItem = z.infer<typeof digestItem>;

/** The body of every webhook (version 1). Receivers de-duplicate by `id` (also the `webhook-id` header). */
export const eventBody = z
  .object({
    type: z.literal('burrow.event'),
    version: z.literal(1),
    id: z.string().describe('The message id: the same on every attempt (the webhook-id header)'),
    eventId: z.string().describe('The event this message is about (one event may reach several accounts)'),
    kind: eventKind,
    time: z.string().describe('When it happened (ISO 8601)'),
    title: z.string(),
    text: z.string(),
    actor: z.object({ userId: z.string().nullable(), username: z.string().nullable() }).nullable(),
    recipient: z.object({ userId: z.string(), username: z.string() }),
    paths: z.array(z.string()).describe('Where, as the recipient sees it (the first few of a batch)'),
    count: z.number().int().describe('How many items the operation touched'),
    address: z.string().nullable().describe('The address the sign-in came from (sign-in events only)'),
    events: z
      .array(digestItem)
      .optional()
      .describe('A digest only (kind `digest`): the events it gathers, oldest first'),
  })
  .describe(
    'Burrow event, version 1. Signed per Standard Webhooks: webhook-signature is `v1,` + base64(HMAC-SHA256(key, `${webhook-id}.${webhook-timestamp}.${body}`)), the key being the base64 after `whsec_` in the secret.',
  );
export type EventBody = z.infer<typeof eventBody>;

const destinationKind = z.enum(['webhook', 'ntfy', 'email', 'push']);
const httpUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'http:' || u.protocol === 'https:') && !u.username && !u.password;
    } catch {
      return false;
    }
  }, 'an http:// or https:// address without a user name or password in it');
const name = z.string().trim().min(1).max(100);
const topic = z
  .string()
  .trim()
  .regex(/^[-_A-Za-z0-9]{1,64}$/, 'letters, digits, - and _ (at most 64)');

const host = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9.:[\]_-]+$/, 'a host name or an address');
const port = z.number().int().min(1).max(65535);
const security = z
  .enum(['starttls', 'tls', 'none'])
  .describe(
    '`starttls`: plain connection upgraded with STARTTLS, refused when the server does not offer it (port 587); `tls`: TLS from the start (port 465); `none`: no encryption (a relay on the LAN; no credentials allowed)',
  );
const pem = z
  .string()
  .max(20_000)
  .regex(/-----BEGIN CERTIFICATE-----/, 'a PEM certificate')
  .describe('A certificate authority (PEM) to trust for this server besides the system ones (a self-signed relay)');

/** The SMTP server an e-mail destination sends through (its password is never shown). */
export const wireSmtp = z.object({
  host: z.string(),
  port: z.number().int(),
  security,
  username: z.string().nullable(),
  from: z.string(),
  hasCa: z.boolean().describe('A certificate authority of its own is trusted for this server'),
});
export type WireSmtp = z.infer<typeof wireSmtp>;

export const destinationId = z.string().regex(/^dst_[A-Za-z0-9_-]{8,40}$/);
export const deliveryId = z.string().regex(/^msg_[A-Za-z0-9_-]{8,60}$/);

export const wireDestination = z.object({
  id: z.string(),
  kind: destinationKind,
  name: z.string(),
  url: z.string().describe('Where it goes (webhook, ntfy); for e-mail, the Burrow address the messages link to'),
  topic: z.string().nullable(),
  smtp: wireSmtp.nullable().describe('E-mail only: the SMTP server'),
  enabled: z.boolean(),
  hasSecret: z
    .boolean()
    .describe('A webhook signing secret, an ntfy access token or an SMTP password is held (sealed; never shown again)'),
  createdAt: z.string(),
});
export type WireDestination = z.infer<typeof wireDestination>;

/** What an account sees of a destination: never its address nor its secret. */
export const choosableDestination = z.object({ id: z.string(), kind: destinationKind, name: z.string() });

export const addDestinationBody = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('webhook'), name, url: httpUrl }),
  z.object({
    kind: z.literal('ntfy'),
    name,
    url: httpUrl.describe('The ntfy server, e.g. http://ntfy.lan'),
    topic,
    token: z.string().min(1).max(500).optional().describe('An ntfy access token (kept sealed)'),
  }),
  z.object({ kind: z.literal('push'), name }),
  z.object({
    kind: z.literal('email'),
    name,
    url: httpUrl.describe(
      'The address of this Burrow the messages link to (unsubscribe), e.g. https://files.example.org',
    ),
    host,
    port,
    security,
    username: z.string().min(1).max(500).optional(),
    password: z.string().min(1).max(500).optional().describe('Kept sealed, never shown again'),
    from: z.email().max(254).describe('The sender address'),
    tlsCa: pem.optional(),
  }),
]);
export const updateDestinationBody = z.object({
  name: name.optional(),
  url: httpUrl.optional(),
  topic: topic.optional(),
  enabled: z.boolean().optional(),
  token: z.string().min(1).max(500).nullable().optional().describe('ntfy only: a new access token, or null to drop it'),
  host: host.optional().describe('E-mail only'),
  port: port.optional().describe('E-mail only'),
  security: security.optional().describe('E-mail only'),
  username: z.string().min(1).max(500).nullable().optional().describe('E-mail only: a new user name, or null for none'),
  password: z.string().min(1).max(500).nullable().optional().describe('E-mail only: a new password, or null for none'),
  from: z.email().max(254).optional().describe('E-mail only'),
  tlsCa: pem
    .nullable()
    .optional()
    .describe('E-mail only: a certificate authority to trust, or null for the system ones'),
});

export const destinationList = z.object({ destinations: z.array(wireDestination) });
export const oneDestination = z.object({ destination: wireDestination });
export const addedDestination = z.object({
  destination: wireDestination,
  secret: z
    .string()
    .nullable()
    .describe('A webhook\u2019s signing secret (whsec_…): shown in this answer only; null for ntfy'),
});
export const choosableList = z.object({ destinations: z.array(choosableDestination) });
export const destinationParams = z.object({ id: destinationId });

const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'a time of day, HH:MM (24 hours)');
export const deliveryMode = z
  .enum(['now', 'hourly', 'daily'])
  .describe(
    '`now`: each event at once; `hourly`: one digest at the next full hour; `daily`: one digest a day at `dailyAt`',
  );
export const timeZone = z
  .string()
  .min(1)
  .max(64)
  .refine(isTimeZone, 'an IANA time zone, e.g. Europe/Berlin')
  .describe('The account’s time zone (IANA), for quiet hours and digests');
export const quietHours = z
  .object({ from: hhmm, to: hhmm })
  .refine((q) => q.from !== q.to, 'quiet hours end at another time than they begin')
  .describe(
    'Local times; across midnight when `to` is earlier than `from`. Messages made in them wait and go out as one digest at `to` (the bell records them at once)',
  );
const scheduleFields = {
  timeZone,
  quietHours: quietHours.nullable(),
  dailyAt: hhmm.describe('When the daily digest goes out (local time)'),
  delivery: z
    .object({
      destinations: z.record(destinationId, deliveryMode).describe('By destination'),
      kinds: z.partialRecord(chosenKind, deliveryMode).describe('By kind of event: wins over its destination’s'),
    })
    .describe(
      'At once or gathered into an hourly or daily digest; unnamed: at once. Webhooks (read by programs) always get each event at once',
    ),
};
export type ScheduleFields = { [K in keyof typeof scheduleFields]: z.infer<(typeof scheduleFields)[K]> };
export const DEFAULT_SCHEDULE: ScheduleFields = {
  timeZone: 'UTC',
  quietHours: null,
  dailyAt: '08:00',
  delivery: { destinations: {}, kinds: {} },
};

const prefsFields = {
  kinds: z.array(chosenKind).max(EVENT_KINDS.length),
  destinations: z.array(destinationId).max(50),
  folders: z.array(z.string().min(1).max(4096)).max(50).describe('Folders watched for uploads, changes and deletions'),
};
const emailOff = z
  .array(chosenKind)
  .max(EVENT_KINDS.length)
  .describe('Kinds whose e-mails this account turned off (from a message’s unsubscribe link, or here)');
export const prefs = z.object({ ...prefsFields, emailOff, ...scheduleFields });
export type Prefs = z.infer<typeof prefs>;
/** What PUT takes: `emailOff` and the schedule's fields left out keep theirs. */
export const prefsBody = z.object({
  ...prefsFields,
  emailOff: emailOff.optional(),
  timeZone: scheduleFields.timeZone.optional(),
  quietHours: scheduleFields.quietHours.optional(),
  dailyAt: scheduleFields.dailyAt.optional(),
  delivery: scheduleFields.delivery.optional(),
});
export const prefsAnswer = z.object({ prefs });

/** Web Push: the installation's VAPID public key (the applicationServerKey a browser subscribes with). */
export const pushKey = z.object({
  publicKey: z.string().describe('Base64url of the uncompressed P-256 point (65 bytes)'),
});
/** What PushManager.subscribe() hands the page (PushSubscription.toJSON()). */
export const pushSubscriptionBody = z.object({
  endpoint: z
    .string()
    .max(2000)
    .describe('The push service address: a known push service (https) or an origin listed in PUSH_SERVICES'),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({
    p256dh: z.string().regex(/^[A-Za-z0-9_-]{87}$/, 'a P-256 public key, base64url (65 bytes)'),
    auth: z.string().regex(/^[A-Za-z0-9_-]{22}$/, 'the authentication secret, base64url (16 bytes)'),
  }),
});
export const wirePushSubscription = z.object({ id: z.string(), endpoint: z.string(), createdAt: z.string() });
export const pushSubscriptionList = z.object({ subscriptions: z.array(wirePushSubscription) });
export const onePushSubscription = z.object({ subscription: wirePushSubscription });
export const pushSubscriptionParams = z.object({ id: z.string().regex(/^psub_[A-Za-z0-9_-]{16}$/) });

/** The bell: the account's recent events (seven days), newest first. */
export const wireInboxItem = z.object({
  id: z.string(),
  kind: eventKind,
  title: z.string(),
  text: z.string(),
  paths: z.array(z.string()),
  at: z.string(),
  read: z.boolean(),
});
export type InboxItem = z.infer<typeof wireInboxItem>;
export const inboxAnswer = z.object({ items: z.array(wireInboxItem), unread: z.number().int() });
/** What the live socket tells an account's pages when its inbox changed: new items (none when only read elsewhere) and the unread count after them. */
export const inboxChange = z.object({ items: z.array(wireInboxItem), unread: z.number().int() });
export type InboxChange = z.infer<typeof inboxChange>;
export const markReadBody = z.object({
  ids: z.array(deliveryId).max(200).optional().describe('The items read; left out: every item'),
});
export const markedAnswer = z.object({ marked: z.number().int() });

/** The unsubscribe link of an e-mail: the kind it turns off and the account's token. */
export const unsubscribeParams = z.object({
  kind: chosenKind,
  token: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
});
export const unsubscribed = z.object({
  unsubscribed: z.object({ kind: chosenKind, title: z.string() }),
});

export const wireDelivery = z.object({
  id: z.string(),
  eventId: z.string(),
  destinationId: z.string(),
  destinationName: z.string().nullable(),
  userId: z.string(),
  kind: z
    .string()
    .describe(
      'The kind the account took the event as (a new device at a new address, for an account that chose new addresses only: `signin.new-address`), `digest` or `test`',
    ),
  title: z.string(),
  state: z
    .enum(['held', 'pending', 'sent', 'dead', 'digested'])
    .describe('`held`: waiting for quiet hours to end or for its digest; `digested`: gone out inside a digest'),
  attempts: z.number().int(),
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  doneAt: z.string().nullable(),
});
export type WireDelivery = z.infer<typeof wireDelivery>;
export const deliveryList = z.object({ deliveries: z.array(wireDelivery) });
export const oneDelivery = z.object({ delivery: wireDelivery });
export const deliveryParams = z.object({ id: deliveryId });
export const deliveriesQuery = z.object({
  state: z.enum(['held', 'pending', 'sent', 'dead', 'digested']).default('dead'),
});

/** The `webhooks` section of /api/openapi.json: what a webhook destination receives. */
export function webhookDescription(): Record<string, unknown> {
  const header = (name: string, description: string) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema: { type: 'string' },
  });
  return {
    'burrow.event': {
      post: {
        summary: 'A Burrow event (body version 1), POSTed to each webhook destination an account chose',
        description:
          'Delivered at least once: retried with backoff (a Retry-After is honoured) until a 2xx; a 3xx or a 4xx other than 408, 425 and 429 stops the retries and leaves the message in the administrator’s undelivered list. De-duplicate by webhook-id.',
        parameters: [
          header('webhook-id', 'The message id (the body’s `id`): the same on every attempt'),
          header('webhook-timestamp', 'Seconds since the epoch, when this attempt was signed'),
          header(
            'webhook-signature',
            '`v1,` + base64(HMAC-SHA256(key, `${webhook-id}.${webhook-timestamp}.${body}`)), key = base64-decoded text after `whsec_`',
          ),
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: z.toJSONSchema(eventBody, { unrepresentable: 'any', io: 'output' }) },
          },
        },
        responses: { '2XX': { description: 'Received' } },
      },
    },
  };
}
