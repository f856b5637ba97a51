// The shares capability as app.ts sees it: its service over the link store and rules (built in
// app.ts before the resolver, which asks them for `share/<token>/…`), its rows, and the sweep
// of ended visitor sessions.
import type { PathLocks } from '../cluster/path-locks.ts';
import { periodicJob, type JobGate } from '../core/periodic.ts';
import type { Logger } from '../core/log.ts';
import type { IncomingMessage } from 'node:http';
import type { Capability } from '../http/capability.ts';
import type { Caller } from '../core/caller.ts';
import type { ChangeSink } from '../changes.ts';
import type { Config } from '../config.ts';
import type { ActivityEvent } from '../activity/service.ts';
import type { RateLimiter } from '../accounts/rate-limits.ts';
import { createBrowse } from '../browse/service.ts';
import type { WorkJournal } from '../files/journal.ts';
import type { ItemLocks } from '../files/locks.ts';
import type { FileOps } from '../files/ops.ts';
import type { PathResolver } from '../files/paths.ts';
import type { VersionService } from '../versions/service.ts';
import type { UploadsCapability } from '../uploads/capability.ts';
import { createSharedEditor } from './editor.ts';
import { inLink } from './reads.ts';
import { shareRoutes, type LinkThumbnails } from './routes.ts';
import { createShares } from './service.ts';
import { createLinkHolding } from './holder.ts';
import type { ShareStore } from './store.ts';
import { LINK_COOKIE, type Links } from './links.ts';
import { cookieOf, type LinkGate } from '../http/link.ts';

export interface SharesCapabilityDeps {
  /** Where the link sweep runs (one instance of a cluster). */
  jobs?: JobGate;
  config: Config;
  limits: RateLimiter;
  store: ShareStore;
  links: Links;
  files: {
    resolver: PathResolver;
    ops: FileOps;
    versions: VersionService;
    journal: WorkJournal;
    locks: ItemLocks;
    /** A file's save turn, in this process and across a cluster's instances (PostgreSQL). */
    saveLocks: PathLocks;
  };
  uploads: Pick<UploadsCapability, 'multipart' | 'tus'>;
  changes: ChangeSink;
  activity: { record(event: ActivityEvent): void };
  thumbnails: LinkThumbnails;
  log: Logger;
  /** The name announced on the LAN as an origin, for links made at localhost or an address (mdns/announced.ts). */
  announcedOrigin?: () => string | null;
}

export interface SharesCapability extends Capability {
  /** Holds the link of every `access: 'link'` row (http/link.ts); app.ts hands it to the server. */
  readonly linkGate: LinkGate;
  /** Does `rel` exist inside the link, for this request's holder? (http/query.ts asks; false when not let in.) */
  linkPathExists(token: string, rel: string, caller: Caller | null, req: IncomingMessage): Promise<boolean>;
}

export function createSharesCapability(deps: SharesCapabilityDeps): SharesCapability {
  const { config, files } = deps;
  const shares = createShares({ store: deps.store, resolver: files.resolver, activity: deps.activity });
  const holding = createLinkHolding({
    store: deps.store,
    links: deps.links,
    resolver: files.resolver,
    limiter: deps.limits,
    activity: deps.activity,
    publicUrl: config.server.publicUrl,
  });
  const routes = shareRoutes({
    shares,
    holding,
    thumbnails: deps.thumbnails,
    resolver: files.resolver,
    ops: files.ops,
    uploads: deps.uploads,
    browse: createBrowse({ resolver: files.resolver, showHidden: () => false }),
    editor: createSharedEditor({
      resolver: files.resolver,
      versions: files.versions,
      changes: deps.changes,
      journal: files.journal,
      maxBytes: config.limits.editorMaxFileSize,
      activity: deps.activity,
      locks: files.locks,
      saveLocks: files.saveLocks,
    }),
    publicUrl: config.server.publicUrl,
    announcedOrigin: deps.announcedOrigin ?? (() => null),
    chunkedEnabled: config.uploads.chunkedEnabled,
  });
  const sweep = periodicJob({
    everyMs: 3_600_000,
    first: 'later',
    log: deps.log,
    failed: 'link sweep failed',
    ...(deps.jobs ? { job: { name: 'shares.sweep', gate: deps.jobs } } : {}),
    run: () => holding.sweep(),
  });
  return {
    routes,
    linkGate: holding.gate,
    async linkPathExists(token, rel, caller, req) {
      const held = holding.hold(token, caller, cookieOf(req, LINK_COOKIE));
      return (await files.resolver.resolve(held.caller, inLink(token, rel))).exists;
    },
    features: () => ({ shares: { enabled: true, fileRequests: true } }),
    start: sweep.start,
    stop: sweep.stop,
  };
}
