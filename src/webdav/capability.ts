// WebDAV as a capability: the /dav/ mount the HTTP server hands raw requests to (no JSON, no body
// limit, no cookie: Basic only), the features section with the address to mount, and the sweep
// of expired locks. Built from the same files services the API uses.
import type { BodyPace } from '../core/load.ts';
import { periodicJob, type JobGate } from '../core/periodic.ts';
import { createDavLockAdmin } from './admin.ts';
import { davLockRoutes } from './routes.ts';
import type { DavServices } from './resources.ts';
import type { ActivityEvent } from '../activity/service.ts';
import type { ChangeSink } from '../changes.ts';
import type { Capability } from '../http/capability.ts';
import type { Logger } from '../core/log.ts';
import { AppError } from '../core/errors.ts';
import type { RawMount } from '../http/server.ts';
import type { FreeSpace } from '../uploads/staging.ts';
import type { QuotaPort } from '../files/quota-port.ts';
import { createDavAuthenticator, type DavAuthDeps } from './auth.ts';
import { handleDav, sendDavError } from './handler.ts';
import { DAV_COMPLIANCE, DAV_PREFIX } from './protocol.ts';
import type { DavStore } from './store.ts';

export interface WebdavDeps {
  /** Where the lock sweep runs (one instance of a cluster). */
  jobs?: JobGate;
  enabled: boolean;
  /** The lock and dead-property store (built in app.ts: its table is one of the bindings). */
  store: DavStore;
  files: Pick<
    DavServices,
    'resolver' | 'ops' | 'trash' | 'versions' | 'transfer' | 'journal' | 'bindings' | 'locks' | 'saveLocks'
  >;
  changes: ChangeSink;
  log: Logger;
  activity: { record(event: ActivityEvent): void };
  credentials: Omit<DavAuthDeps, 'log'>;
  /** The uploads' free-space rule (UPLOAD_FREE_SPACE_RESERVE): a PUT is one more upload. */
  space: FreeSpace;
  quotas: QuotaPort;
  /** People's other requests go first: a PUT's body yields to them (core/load.ts). */
  pace?: BodyPace;
}

export interface WebdavCapability extends Capability {
  /** Absent when WEBDAV_ENABLED=false: /dav/ is then the UI's like any other unknown path. */
  readonly mount: RawMount | null;
}

const SWEEP_EVERY_MS = 10 * 60_000;

export function createWebdavCapability(deps: WebdavDeps): WebdavCapability {
  const features = () => ({ webdav: { enabled: deps.enabled, path: DAV_PREFIX } });
  const { store } = deps;
  const routes = davLockRoutes(createDavLockAdmin(store, deps.activity));
  if (!deps.enabled) return { routes, mount: null, features };
  const auth = createDavAuthenticator({ ...deps.credentials, log: deps.log });
  const services = {
    ...deps.files,
    changes: deps.changes,
    store,
    log: deps.log,
    activity: deps.activity,
    space: deps.space,
    ...(deps.pace ? { pace: deps.pace } : {}),
    quotas: deps.quotas,
  };

  const mount: RawMount = {
    prefix: DAV_PREFIX,
    rootMethods: ['OPTIONS', 'PROPFIND'],
    handle(req, res, { requestId, ip, secure }) {
      const pathname = (req.url ?? '/').split('?')[0]!;
      if (pathname === '/') {
        // Windows asks the server's root before it maps a folder below it: say DAV is spoken
        // here, and that the root itself is not a collection of ours.
        req.resume();
        res.setHeader('DAV', DAV_COMPLIANCE);
        res.setHeader('MS-Author-Via', 'DAV');
        res.setHeader('Allow', 'OPTIONS');
        res.statusCode = req.method === 'OPTIONS' ? 200 : 405;
        res.setHeader('Content-Length', 0);
        res.end();
        return;
      }
      auth
        .authenticate(req, ip, secure)
        .then(
          (caller) => handleDav(req, res, { ...services, caller, requestId, ip }),
          (err) => {
            req.resume();
            if (!(err instanceof AppError) || err.status >= 500)
              deps.log.warn('WebDAV sign-in failed', { requestId, err });
            sendDavError(res, err, { requestId, log: deps.log });
          },
        )
        .catch((err) => deps.log.error('WebDAV request failed', { requestId, err }));
    },
  };

  const sweep = periodicJob({
    everyMs: SWEEP_EVERY_MS,
    first: 'now',
    log: deps.log,
    failed: 'WebDAV lock sweep failed',
    ...(deps.jobs ? { job: { name: 'webdav.sweep', gate: deps.jobs } } : {}),
    run: () => {
      const removed = store.sweepLocks();
      if (removed) deps.log.debug('expired WebDAV locks removed', { removed });
    },
  });
  return {
    routes,
    mount,
    features,
    start: sweep.start,
    stop: sweep.stop,
  };
}
