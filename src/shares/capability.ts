// The shares capability as app.ts sees it: its store and service (which plugs the link space
// into the resolver), its rows, its binding table, and the sweep of ended visitor sessions.
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import type { Capability } from '../core/capability.ts';
import type { Caller } from '../core/caller.ts';
import type { ChangeSink } from '../changes.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { ActivityEvent } from '../activity/service.ts';
import { RateLimiter } from '../auth/rate-limits.ts';
import { createBrowse } from '../browse/service.ts';
import { pathTable } from '../files/bindings.ts';
import type { FilesCapability } from '../files/capability.ts';
import type { UploadsCapability } from '../uploads/capability.ts';
import { createSharedEditor } from './editor.ts';
import { inLink } from './reads.ts';
import { linkVisitor, shareRoutes, type LinkThumbnails } from './routes.ts';
import { createShares } from './service.ts';
import { SecretBox } from '../twofactor/secret-box.ts';
import { createShareStore } from './store.ts';

export interface SharesCapabilityDeps {
  config: Config;
  db: Database;
  files: Pick<FilesCapability, 'resolver' | 'ops' | 'bindings' | 'versions' | 'journal' | 'locks'>;
  uploads: Pick<UploadsCapability, 'multipart' | 'tus'>;
  changes: ChangeSink;
  activity: { record(event: ActivityEvent): void };
  sessionSecret: string;
  thumbnails: LinkThumbnails;
}

export interface SharesCapability extends Capability {
  /** Does `rel` exist inside the link, for this request's holder? (http/query.ts asks; false when not let in.) */
  linkPathExists(token: string, rel: string, caller: Caller | null, req: IncomingMessage): Promise<boolean>;
}

export function createSharesCapability(deps: SharesCapabilityDeps): SharesCapability {
  const { config, db, files } = deps;
  // The key that seals link tokens lives in CONFIG_DIR/keys, never in the database or its backups.
  const store = createShareStore(
    db,
    SecretBox.fromConfigDir(config.storage.configDir, 'link-key'),
    path.join(config.storage.configDir, 'backups'),
  );
  // A share follows its item across rename/move and goes with its deletion (spec §1 rule 4).
  files.bindings.register('shares', pathTable(db, 'shares'));
  const shares = createShares({
    store,
    resolver: files.resolver,
    limiter: new RateLimiter(db),
    activity: deps.activity,
    sessionSecret: deps.sessionSecret,
    publicUrl: config.server.publicUrl,
  });
  const routes = shareRoutes({
    shares,
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
    }),
    publicUrl: config.server.publicUrl,
    chunkedEnabled: config.uploads.chunkedEnabled,
  });
  let timer: NodeJS.Timeout | undefined;
  return {
    routes,
    async linkPathExists(token, rel, caller, req) {
      const holder = shares.linkCaller(token, caller, linkVisitor(req));
      return (await files.resolver.resolve(holder.caller, inLink(token, rel))).exists;
    },
    features: () => ({ shares: { enabled: true, fileRequests: true } }),
    start() {
      timer = setInterval(() => shares.sweep(), 3_600_000);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
