// The trash rows as app.ts mounts them, and the sweep of entries older than TRASH_RETENTION_DAYS
// (the trash service itself is built in app.ts before the file operations, which put into it).
import { periodicJob, type JobGate } from '../core/periodic.ts';
import type { Capability } from '../http/capability.ts';
import type { Logger } from '../core/log.ts';
import { createTrashActions, type TrashActionsDeps } from './actions.ts';
import { trashRoutes } from './routes.ts';

export function createTrashCapability(
  deps: TrashActionsDeps & { retentionDays: number; everyMs: number; log: Logger; jobs?: JobGate },
): Capability {
  const { trash, log } = deps;
  const sweep = periodicJob({
    everyMs: deps.everyMs,
    first: 'now',
    log,
    failed: 'trash sweep failed',
    ...(deps.jobs ? { job: { name: 'trash.purge', gate: deps.jobs } } : {}),
    run: async () => {
      const n = await trash.sweep(deps.retentionDays);
      if (n) log.info('trash sweep removed entries', { removed: n });
      return n;
    },
  });
  return {
    routes: trashRoutes(createTrashActions(deps)),
    start: sweep.start,
    stop: sweep.stop,
  };
}
