// Previews and thumbnails as app.ts mounts them.
import type { Capability } from '../core/capability.ts';
import type { Logger } from '../core/log.ts';
import type { PathResolver } from '../files/paths.ts';
import { previewRoutes } from './routes.ts';
import { createPreviews } from './service.ts';
import { createThumbnails, type ThumbnailSettings } from './thumbnails.ts';

export function createPreviewsCapability(deps: {
  resolver: PathResolver;
  cacheDir: string;
  thumbnails: () => ThumbnailSettings;
  log: Logger;
}): Capability {
  const thumbnails = createThumbnails({ cacheDir: deps.cacheDir, settings: deps.thumbnails, log: deps.log });
  return { routes: previewRoutes(createPreviews({ resolver: deps.resolver, thumbnails })) };
}
