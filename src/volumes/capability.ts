// The volumes' administration rows as app.ts mounts them: folders assigned to accounts, and host
// folders served as volumes — whose changes the indexes follow (`hostVolumes`). The stores are
// built in app.ts before the resolver, which serves both.
import type { Capability } from '../http/capability.ts';
import type { Config } from '../config.ts';
import { hostVolumeRoutes } from './host-routes.ts';
import { createHostVolumes, type HostVolumeEvent, type VolumeHealth, type VolumeRules } from './host-service.ts';
import type { HostVolumeStore } from './host-store.ts';
import { volumeRoutes } from './routes.ts';
import { createAssignedVolumes } from './service.ts';
import type { UserVolumeStore } from './store.ts';

export interface VolumesCapability extends Capability {
  /** Host folders served as volumes, as the indexes follow them (real paths). */
  readonly hostVolumes: {
    roots(): string[];
    /** Whether any space (a volume, a personal or assigned folder, a host folder) is rooted at this real path. */
    inUse(realRoot: string): boolean;
    subscribe(listener: (event: HostVolumeEvent) => void): () => void;
    /** The volume check: each host folder's trouble (gone, unreadable), or null. */
    health(): Promise<VolumeHealth[]>;
  };
}

export function createVolumesCapability(deps: {
  store: UserVolumeStore;
  hostStore: HostVolumeStore;
  config: Config;
  /** Folders no volume may be made of (configuration, cache). */
  privateDirs: readonly string[];
  spaceRoots: () => string[];
  /** The access model: a volume for one group, a renamed volume's rules. */
  rules: VolumeRules;
}): VolumesCapability {
  const { config, hostStore } = deps;
  const listeners = new Set<(event: HostVolumeEvent) => void>();
  const host = createHostVolumes({
    store: hostStore,
    volumeRoot: config.storage.volumeRoot,
    privateDirs: deps.privateDirs,
    rules: deps.rules,
    announce: (event) => {
      for (const listener of listeners) listener(event);
    },
  });
  return {
    routes: [...hostVolumeRoutes(host), ...volumeRoutes(createAssignedVolumes(deps))],
    hostVolumes: {
      roots: () => hostStore.list().map((v) => v.path),
      inUse: (realRoot) => deps.spaceRoots().includes(realRoot),
      health: () => host.health(),
      subscribe(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
  };
}
