// Downloads as app.ts mounts them.
import type { Capability } from '../http/capability.ts';
import type { PathResolver } from '../files/paths.ts';
import { downloadRoutes } from './routes.ts';
import { createDownloads } from './service.ts';

export function createDownloadsCapability(deps: {
  resolver: PathResolver;
  showHidden: (userId: string) => boolean;
}): Capability {
  return { routes: downloadRoutes(createDownloads(deps)) };
}
