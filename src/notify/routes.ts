// Rows of the route table for notifications: the administrator's destinations and dead letters,
// and each account's choices among the destinations.
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { noContent, reply, route } from '../http/route.ts';
import { unsubscribePage } from './page.ts';
import type { NotifyService } from './service.ts';
import {
  addDestinationBody,
  addedDestination,
  choosableList,
  deliveriesQuery,
  deliveryList,
  deliveryParams,
  destinationList,
  destinationParams,
  inboxAnswer,
  markedAnswer,
  markReadBody,
  onePushSubscription,
  pushKey,
  pushSubscriptionBody,
  pushSubscriptionList,
  pushSubscriptionParams,
  oneDelivery,
  oneDestination,
  prefsAnswer,
  prefsBody,
  unsubscribed,
  unsubscribeParams,
  updateDestinationBody,
} from './wire.ts';

/** A browser's form (the link's page) rather than a mail provider's one-click POST. */
const wantsPage = (req: IncomingMessage) => /\btext\/html\b/.test(req.headers.accept ?? '');

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
};

export function notifyRoutes(notify: NotifyService) {
  const tags = ['Notifications'];
  return [
    route({
      method: 'GET',
      path: '/api/admin/notify/destinations',
      access: 'admin',
      tags,
      summary: 'Every destination (webhooks, ntfy topics) with its address; secrets are never shown',
      responses: { 200: { description: 'The destinations', schema: destinationList } },
      handler: () => notify.destinations(),
    }),
    route({
      method: 'POST',
      path: '/api/admin/notify/destinations',
      access: 'admin',
      tags,
      status: 201,
      summary:
        'Add a destination. A webhook gets a signing secret (Standard Webhooks, whsec_…) shown in this answer only; an ntfy topic may carry an access token (kept sealed)',
      body: addDestinationBody,
      responses: {
        201: { description: 'The destination, and a webhook’s secret', schema: addedDestination },
        400: 'Not an http(s) address, or a bad topic',
      },
      handler: ({ body }) => notify.addDestination(body),
    }),
    route({
      method: 'PATCH',
      path: '/api/admin/notify/destinations/:id',
      access: 'admin',
      tags,
      summary: 'Rename, readdress, turn on or off a destination (an ntfy token replaced or dropped)',
      params: destinationParams,
      body: updateDestinationBody,
      responses: { 200: { description: 'The destination', schema: oneDestination }, 404: 'No such destination' },
      handler: ({ params, body }) => notify.updateDestination(params.id, body),
    }),
    route({
      method: 'DELETE',
      path: '/api/admin/notify/destinations/:id',
      access: 'admin',
      tags,
      summary: 'Remove a destination and what was still to be sent to it',
      params: destinationParams,
      responses: { 204: 'Removed', 404: 'No such destination' },
      handler: ({ params }) => {
        notify.removeDestination(params.id);
        return noContent();
      },
    }),
    route({
      method: 'POST',
      path: '/api/admin/notify/destinations/:id/test',
      access: 'admin',
      tags,
      status: 202,
      summary: 'Send a test notification to this destination (through the outbox; its delivery tells how it went)',
      params: destinationParams,
      responses: { 202: { description: 'The delivery, pending', schema: oneDelivery }, 404: 'No such destination' },
      handler: ({ caller, params }) => notify.sendTest(caller, params.id),
    }),
    route({
      method: 'GET',
      path: '/api/admin/notify/deliveries',
      access: 'admin',
      tags,
      summary: 'Deliveries by state, newest first: `dead` (the default) lists what could not be delivered',
      query: deliveriesQuery,
      responses: { 200: { description: 'The deliveries', schema: deliveryList } },
      handler: ({ query }) => notify.deliveries(query.state),
    }),
    route({
      method: 'GET',
      path: '/api/admin/notify/deliveries/:id',
      access: 'admin',
      tags,
      summary: 'One delivery: its state, attempts and the last answer (how a test went)',
      params: deliveryParams,
      responses: { 200: { description: 'The delivery', schema: oneDelivery }, 404: 'No such delivery' },
      handler: ({ params }) => notify.delivery(params.id),
    }),
    route({
      method: 'POST',
      path: '/api/admin/notify/deliveries/:id/retry',
      access: 'admin',
      tags,
      summary: 'Send an undelivered message again (same message id, so a receiver that had it drops it)',
      params: deliveryParams,
      responses: {
        200: { description: 'The delivery, pending again', schema: oneDelivery },
        404: 'No such delivery',
        409: 'Not an undelivered message',
      },
      handler: ({ params }) => notify.sendAgain(params.id),
    }),
    route({
      method: 'GET',
      path: '/api/notify/destinations',
      access: 'account',
      tags,
      summary: 'The destinations this account may choose (names only)',
      responses: { 200: { description: 'The destinations', schema: choosableList } },
      handler: () => notify.choosable(),
    }),
    route({
      method: 'GET',
      path: '/api/notify/prefs',
      access: 'account',
      tags,
      summary: 'What this account is notified of, where, and which folders it watches',
      responses: { 200: { description: 'The choices', schema: prefsAnswer } },
      handler: ({ caller }) => notify.prefs(caller),
    }),
    route({
      method: 'PUT',
      path: '/api/notify/prefs',
      access: 'account',
      tags,
      summary: 'Replace this account’s choices (destinations among the enabled ones, folders it can see)',
      body: prefsBody,
      responses: {
        200: { description: 'The choices as kept', schema: prefsAnswer },
        404: 'A destination or folder that does not exist (or that this account may not see)',
      },
      handler: ({ caller, body }) => notify.putPrefs(caller, body),
    }),
    route({
      method: 'GET',
      path: '/api/notify/push/key',
      access: 'account',
      tags,
      summary: 'The VAPID public key browsers subscribe with (made once for the installation)',
      responses: { 200: { description: 'The key', schema: pushKey } },
      handler: () => notify.pushKey(),
    }),
    route({
      method: 'GET',
      path: '/api/notify/push/subscriptions',
      access: 'account',
      tags,
      summary: 'This account’s subscribed browsers',
      responses: { 200: { description: 'The subscriptions', schema: pushSubscriptionList } },
      handler: ({ caller }) => notify.pushSubscriptions(caller),
    }),
    route({
      method: 'POST',
      path: '/api/notify/push/subscriptions',
      access: 'account',
      tags,
      status: 201,
      summary:
        'Subscribe a browser (the PushSubscription as PushManager hands it). The endpoint must be a known push service over https, or an origin the administrator listed in PUSH_SERVICES',
      body: pushSubscriptionBody,
      responses: {
        201: { description: 'The subscription', schema: onePushSubscription },
        400: 'A push service Burrow does not send to, or keys that are not a subscription’s',
      },
      handler: ({ caller, body }) => notify.subscribe(caller, body),
    }),
    route({
      method: 'DELETE',
      path: '/api/notify/push/subscriptions/:id',
      access: 'account',
      tags,
      summary: 'Stop pushing to this browser',
      params: pushSubscriptionParams,
      responses: { 204: 'Removed', 404: 'No such subscription of this account' },
      handler: ({ caller, params }) => {
        notify.unsubscribePush(caller, params.id);
        return noContent();
      },
    }),
    route({
      method: 'GET',
      path: '/api/notify/inbox',
      access: 'account',
      tags,
      summary: 'The bell: this account’s events of the last seven days, newest first, and how many are unread',
      responses: { 200: { description: 'The events', schema: inboxAnswer } },
      handler: ({ caller }) => notify.inbox(caller),
    }),
    route({
      method: 'POST',
      path: '/api/notify/inbox/read',
      access: 'account',
      tags,
      summary: 'Mark events read (these ids, or all of them)',
      body: markReadBody,
      responses: { 200: { description: 'How many were marked', schema: markedAnswer } },
      handler: ({ caller, body }) => notify.markRead(caller, body),
    }),
    route({
      method: 'POST',
      path: '/api/notify/unsubscribe/:kind/:token',
      access: 'public',
      tags,
      summary:
        'One-click unsubscribe (RFC 8058): the List-Unsubscribe address of an e-mail. Turns off that account’s e-mails of this kind without signing in; the token is the account’s, from its messages. A request from another site is refused like any change',
      params: unsubscribeParams,
      body: 'stream',
      responses: {
        200: { description: 'Turned off', schema: unsubscribed },
        303: 'From the link’s page in a browser (Accept: text/html): back to the page, which says it is done',
        404: 'Not a valid link (forged, altered, or of an account that is gone)',
      },
      handler: ({ params, req }) => {
        const done = notify.unsubscribe(params.kind, params.token);
        return wantsPage(req) ? reply(303, undefined, { location: '?done=1', 'cache-control': 'no-store' }) : done;
      },
    }),
    route({
      method: 'GET',
      path: '/api/notify/unsubscribe/:kind/:token',
      access: 'public',
      tags,
      summary:
        'The unsubscribe link opened in a browser: a page with one button that POSTs here (opening it changes nothing, as RFC 8058 asks)',
      params: unsubscribeParams,
      query: z.object({ done: z.literal('1').optional() }),
      responses: {
        200: { description: 'The page', contentType: 'text/html' },
        404: 'Not a valid link',
      },
      handler: ({ params, query }) =>
        reply(
          200,
          unsubscribePage(notify.unsubscribeCheck(params.kind, params.token).title, query.done === '1'),
          PAGE_HEADERS,
        ),
    }),
  ];
}
