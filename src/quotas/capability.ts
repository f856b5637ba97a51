// The quotas capability as app.ts sees it: the service the writers hold their bytes against
// (uploads, WebDAV, copies, extractions) and the rows of the sidebar and Administration.
import type { Capability } from '../http/capability.ts';
import type { ConfigCache } from '../cluster/config-cache.ts';
import type { Database } from '../db/database.ts';
import { createQuotaAdmin, type QuotaAdminDeps } from './admin.ts';
import { quotaRoutes } from './routes.ts';
import { createQuotas, type Quotas, type QuotasDeps } from './service.ts';
import { createQuotaStore } from './store.ts';

export interface QuotasCapability extends Capability {
  readonly quotas: Quotas;
}

export function createQuotasCapability(
  deps: { db: Database; cache: ConfigCache } & Omit<QuotasDeps, 'store'> & Omit<QuotaAdminDeps, 'quotas' | 'store'>,
): QuotasCapability {
  const store = createQuotaStore(deps.db, deps.cache);
  const quotas = createQuotas({ ...deps, store });
  const admin = createQuotaAdmin({ ...deps, quotas, store });
  return { quotas, routes: quotaRoutes(admin) };
}
