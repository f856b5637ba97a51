// The quotas capability as app.ts sees it: the service the writers hold their bytes against
// (uploads, WebDAV, copies, extractions) and the rows of the sidebar and Administration.
import type { Capability } from '../http/capability.ts';
import type { ConfigCache } from '../cluster/config-cache.ts';
import type { Database } from '../db/database.ts';
import type { Leases } from '../cluster/leases.ts';
import type { Logger } from '../core/log.ts';
import { createHoldStore } from './hold-store.ts';
import { createQuotaAdmin, type QuotaAdminDeps } from './admin.ts';
import { quotaRoutes } from './routes.ts';
import { createQuotas, type Quotas, type QuotasDeps } from './service.ts';
import { createQuotaStore } from './store.ts';

export interface QuotasCapability extends Capability {
  readonly quotas: Quotas;
}

export function createQuotasCapability(
  deps: { db: Database; cache: ConfigCache; leases: Leases; log: Logger } & Omit<QuotasDeps, 'store' | 'shared'> &
    Omit<QuotaAdminDeps, 'quotas' | 'store'>,
): QuotasCapability {
  const store = createQuotaStore(deps.db, deps.cache);
  // Several instances on one PostgreSQL hold in its rows; the embedded database's one in memory.
  const shared = deps.leases.shared
    ? { holds: createHoldStore(deps.db), instance: deps.leases.instance, log: deps.log }
    : undefined;
  const quotas = createQuotas({ ...deps, store, shared });
  const admin = createQuotaAdmin({ ...deps, quotas, store });
  return { quotas, routes: quotaRoutes(admin) };
}
