// Previews and thumbnails as app.ts mounts them.
import type { Capability } from '../http/capability.ts';
import type { Logger } from '../core/log.ts';
import type { PathResolver } from '../files/paths.ts';
import { previewRoutes } from './routes.ts';
import { createPreviews, type Previews } from './service.ts';
import { createThumbnails, type ThumbnailSettings } from './thumbnails.ts';

export function createPreviewsCapability(deps: {
  resolver: PathResolver;
  cacheDir: string;
  thumbnails: () => ThumbnailSettings;
  log: Logger;
}): Capability & { previews: Previews } {
  const thumbnails = createThumbnails({ cacheDir: deps.cacheDir, settings: deps.thumbnails, log: deps.log });
  const previews = createPreviews({ resolver: deps.resolver, thumbnails });
  // `previews` is handed to shares too: a link holder's thumbnails are made and cached alike.
  return { routes: previewRoutes(previews), previews, stop: () => thumbnails.close() };
}
