// Assigned volumes' administration rows as app.ts mounts them (the store is the files
// resolver's, built with the files services).
import type { Capability } from '../core/capability.ts';
import type { Config } from '../config.ts';
import { volumeRoutes } from './routes.ts';
import { createAssignedVolumes } from './service.ts';
import type { UserVolumeStore } from './store.ts';

export function createVolumesCapability(deps: { store: UserVolumeStore; config: Config }): Capability {
  return { routes: volumeRoutes(createAssignedVolumes(deps)) };
}
