// The versions rows as app.ts mounts them (the version keeper itself is built with the files
// services: the editor, office and WebDAV keep versions through it).
import type { Capability } from '../http/capability.ts';
import type { PathResolver } from '../files/paths.ts';
import { createVersionActions } from './actions.ts';
import { versionRoutes } from './routes.ts';
import type { VersionService } from './service.ts';

export function createVersionsCapability(deps: {
  versions: VersionService;
  resolver: PathResolver;
  maxTextBytes: number;
}): Capability {
  return { routes: versionRoutes(createVersionActions(deps)) };
}
