// Video that plays, as app.ts mounts it: the plan and stream rows, ffmpeg stopped with the server.
import path from 'node:path';
import type { Capability } from '../http/capability.ts';
import type { Logger } from '../core/log.ts';
import type { PathResolver } from '../files/paths.ts';
import { videoRoutes } from './routes.ts';
import { createVideo } from './service.ts';

export function createVideoCapability(deps: {
  resolver: PathResolver;
  limits: { transcodes: number; streams: number };
  /** The cache folder: a stream's output is held there for viewers who join late. */
  cacheDir: string;
  log: Logger;
}): Capability {
  const video = createVideo({
    resolver: deps.resolver,
    limits: () => deps.limits,
    spillDir: path.join(deps.cacheDir, 'video'),
    log: deps.log,
  });
  return {
    routes: videoRoutes({ video, resolver: deps.resolver }),
    features: () => ({ video: { transcodes: deps.limits.transcodes, streams: deps.limits.streams } }),
    stop: () => video.stop(),
  };
}
