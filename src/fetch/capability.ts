// "Add from link" as app.ts sees it: its rows and the running fetches ended at shutdown.
import type { Config } from '../config.ts';
import type { Logger } from '../core/log.ts';
import type { ActivitySink } from '../files/activity.ts';
import type { WorkJournal } from '../files/journal.ts';
import type { QuotaPort } from '../files/quota-port.ts';
import type { Capability } from '../http/capability.ts';
import type { Placement } from '../uploads/placement.ts';
import type { Staging } from '../uploads/staging.ts';
import { createAddressPolicy } from './address.ts';
import { fetchRoutes } from './routes.ts';
import { createFetchService } from './service.ts';
import { createFetchStore } from './store.ts';
import type { Database } from '../db/database.ts';

export function createFetchCapability(deps: {
  config: Config;
  uploads: { placement: Placement; staging: Staging };
  quotas: QuotaPort;
  journal: WorkJournal;
  activity: ActivitySink;
  log: Logger;
  db: Database;
  /** This instance, and whether another's lease runs (cluster/leases.ts). */
  owner: { readonly instance: string; alive(owner: string): boolean };
}): Capability {
  const f = deps.config.fetch;
  const service = createFetchService({
    placement: deps.uploads.placement,
    staging: deps.uploads.staging,
    journal: deps.journal,
    activity: deps.activity,
    policy: createAddressPolicy({ allowNetworks: f.allowNetworks, dnsServer: f.dnsServer }),
    quotas: deps.quotas,
    maxSize: f.maxSize,
    timeoutMs: f.timeoutMs,
    log: deps.log,
    store: createFetchStore(deps.db),
    owner: deps.owner,
  });
  return {
    routes: fetchRoutes(service),
    features: () => ({ fetch: { enabled: true, maxSize: f.maxSize } }),
    stop: service.stop,
  };
}
