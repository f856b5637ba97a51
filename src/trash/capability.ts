// The trash rows as app.ts mounts them, and the sweep of entries older than TRASH_RETENTION_DAYS
// (the trash service itself is built in app.ts before the file operations, which put into it).
import type { Capability } from '../http/capability.ts';
import type { Logger } from '../core/log.ts';
import { createTrashActions, type TrashActionsDeps } from './actions.ts';
import { trashRoutes } from './routes.ts';

const HOUR = 3_600_000;

export function createTrashCapability(deps: TrashActionsDeps & { retentionDays: number; log: Logger }): Capability {
  const { trash, log } = deps;
  let sweepTimer: NodeJS.Timeout | undefined;
  const sweep = () =>
    trash
      .sweep(deps.retentionDays)
      .then((n) => {
        if (n) log.info('trash sweep removed entries', { removed: n });
      })
      .catch((err) => log.warn('trash sweep failed', { err }));
  return {
    routes: trashRoutes(createTrashActions(deps)),
    start() {
      void sweep();
      sweepTimer = setInterval(sweep, 6 * HOUR);
      sweepTimer.unref();
    },
    stop() {
      if (sweepTimer) clearInterval(sweepTimer);
    },
  };
}
