// The trash rows as app.ts mounts them, and the sweep of entries older than TRASH_RETENTION_DAYS
// (the trash service itself is built in app.ts before the file operations, which put into it).
import { periodicJob } from '../core/periodic.ts';
import type { Capability } from '../http/capability.ts';
import type { Logger } from '../core/log.ts';
import { createTrashActions, type TrashActionsDeps } from './actions.ts';
import { trashRoutes } from './routes.ts';

const HOUR = 3_600_000;

export function createTrashCapability(deps: TrashActionsDeps & { retentionDays: number; log: Logger }): Capability {
  const { trash, log } = deps;
  const sweep = periodicJob({
    everyMs: 6 * HOUR,
    first: 'now',
    log,
    failed: 'trash sweep failed',
    run: async () => {
      const n = await trash.sweep(deps.retentionDays);
      if (n) log.info('trash sweep removed entries', { removed: n });
    },
  });
  return {
    routes: trashRoutes(createTrashActions(deps)),
    start: sweep.start,
    stop: sweep.stop,
  };
}
