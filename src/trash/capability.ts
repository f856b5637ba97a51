// The trash rows as app.ts mounts them (the trash service itself is built with the files
// services, since deletion puts items into it).
import type { Capability } from '../core/capability.ts';
import { createTrashActions, type TrashActionsDeps } from './actions.ts';
import { trashRoutes } from './routes.ts';

export function createTrashCapability(deps: TrashActionsDeps): Capability {
  return { routes: trashRoutes(createTrashActions(deps)) };
}
