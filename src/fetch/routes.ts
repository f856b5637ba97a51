// The rows of "Add from link": start, follow, list, cancel.
import { route } from '../http/route.ts';
import { RUNNING_PER_ACCOUNT, type FetchService } from './service.ts';
import { fetchBody, fetchJob, fetchJobs, fetchParams } from './wire.ts';

const TAGS = ['Uploads'];

export function fetchRoutes(service: FetchService) {
  return [
    route({
      method: 'POST',
      path: '/api/fetch',
      access: 'account',
      tags: TAGS,
      status: 202,
      body: fetchBody,
      summary: 'Add from link: fetch a file from a web address into a folder',
      description: `Body \`{url, uploadTo, name?, conflict?}\`. The folder and the right to upload there are checked first, then the address is opened: only http and https; private, loopback, link-local, multicast and cloud-metadata addresses are refused unless FETCH_ALLOW_NETWORKS lists them — checked on the address each connection is made to (after the name is resolved, on every redirect, at most 5). The answer comes once the other server has begun to answer (202, the job, state \`running\`); the body then streams onto the destination's disk in the background (follow it with GET /api/fetch/{id}, cancel with DELETE) and is placed whole, under a free name (\`name (1)\`), with the folder's rights checked again; nothing is left on disk by a refusal, a failure or a cancel. The name: \`name\`, else Content-Disposition's, else the address's last segment. At most ${RUNNING_PER_ACCOUNT} fetches run per account.`,
      responses: {
        202: { description: 'The fetch, running (or done, for a `skip` whose name is taken)', schema: fetchJob },
        400: 'FETCH_BAD_URL (not http/https, or credentials in it), a bad name',
        403: 'FETCH_ADDRESS_REFUSED, or the caller may not upload into the folder',
        404: 'The folder does not exist',
        413: 'FETCH_TOO_LARGE: Content-Length over FETCH_MAX_SIZE',
        429: `FETCH_TOO_MANY: ${RUNNING_PER_ACCOUNT} fetches of this account are running`,
        502: 'FETCH_UNREACHABLE, FETCH_REMOTE_STATUS (not a 2xx answer) or FETCH_REDIRECTS',
        504: 'FETCH_TIMEOUT: no answer within FETCH_TIMEOUT_MS',
        507: 'NO_SPACE: the Content-Length does not fit on the volume',
      },
      handler: ({ caller, body }) => service.start(caller, body),
    }),
    route({
      method: 'GET',
      path: '/api/fetch',
      access: 'account',
      tags: TAGS,
      summary: "The caller's fetches: running ones, and finished ones for an hour (the newest 20)",
      responses: { 200: { description: 'Newest first', schema: fetchJobs } },
      handler: ({ caller }) => service.list(caller),
    }),
    route({
      method: 'GET',
      path: '/api/fetch/:id',
      access: 'account',
      tags: TAGS,
      params: fetchParams,
      summary: 'One fetch: bytes received, and once finished the placed file or why it failed',
      responses: { 200: { description: 'The fetch', schema: fetchJob }, 404: "FETCH_NOT_FOUND (or another account's)" },
      handler: ({ caller, params }) => service.get(caller, params.id),
    }),
    route({
      method: 'DELETE',
      path: '/api/fetch/:id',
      access: 'account',
      tags: TAGS,
      params: fetchParams,
      summary: 'Cancel a running fetch (what it received is removed) or forget a finished one',
      responses: {
        200: { description: 'The fetch as it was when cancelled or forgotten', schema: fetchJob },
        404: "FETCH_NOT_FOUND (or another account's)",
      },
      handler: ({ caller, params }) => service.cancel(caller, params.id),
    }),
  ];
}
