// The trash rows as app.ts mounts them (the trash service itself is built with the files
// services, since deletion puts items into it).
import type { Capability } from '../core/capability.ts';
import type { FileOps } from '../files/ops.ts';
import { createTrashActions } from './actions.ts';
import { trashRoutes } from './routes.ts';
import type { TrashService } from './service.ts';

export function createTrashCapability(deps: { trash: TrashService; ops: FileOps; maxTextBytes: number }): Capability {
  return { routes: trashRoutes(createTrashActions(deps)) };
}
