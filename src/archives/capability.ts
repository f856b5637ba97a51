// The archives capability as app.ts sees it: browse, take out, extract and create archives,
// confined at use (extraction writes through confinedTarget), writes announced on the changes sink.
import type { Capability } from '../http/capability.ts';
import type { ChangeSink } from '../changes.ts';
import type { Config } from '../config.ts';
import type { ActivitySink } from '../files/activity.ts';
import type { WorkJournal } from '../files/journal.ts';
import type { FileOps } from '../files/ops.ts';
import type { PathResolver } from '../files/paths.ts';
import { confinedTarget } from './confined-target.ts';
import { createArchiveOperations } from './operations.ts';
import { archiveRoutes } from './routes.ts';
import { ArchiveService } from './service.ts';
import type { QuotaPort } from '../files/quota-port.ts';

export interface ArchivesDeps {
  config: Config;
  files: { resolver: PathResolver; ops: FileOps; journal: WorkJournal };
  changes: ChangeSink;
  /** The account's preference: dot-files go into a new zip only when it sees them. */
  showHidden: (userId: string) => boolean;
  activity: ActivitySink;
  quotas: QuotaPort;
}

export function createArchivesCapability(deps: ArchivesDeps): Capability {
  const { limits } = deps.config;
  const service = new ArchiveService({
    maxEntries: limits.archiveMaxEntries,
    maxBrowsableSize: limits.maxBrowsableArchiveSize,
    target: confinedTarget,
    changes: deps.changes,
    journal: deps.files.journal,
  });
  const operations = createArchiveOperations({
    service,
    resolver: deps.files.resolver,
    ops: deps.files.ops,
    showHidden: deps.showHidden,
    activity: deps.activity,
    quotas: deps.quotas,
  });
  return {
    routes: archiveRoutes({ operations }),
    features: () => ({
      archives: {
        enabled: true,
        maxBrowsableSize: limits.maxBrowsableArchiveSize,
        maxEntries: limits.archiveMaxEntries,
      },
    }),
  };
}
