// The uploads capability as app.ts sees it: its routes, its feature section and the expiry
// sweep of resumable uploads (a timer started after listen, never in the request path).
import { periodicJob, type JobGate } from '../core/periodic.ts';
import type { Capability } from '../http/capability.ts';
import type { ChangeSink } from '../changes.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { ActivitySink } from '../files/activity.ts';
import type { WorkJournal } from '../files/journal.ts';
import type { OwnFolders } from '../files/own.ts';
import type { PathResolver } from '../files/paths.ts';
import type { Logger } from '../core/log.ts';
import type { BodyPace } from '../core/load.ts';
import { createMultipartReceiver } from './multipart.ts';
import { createPlacement, type Placement, type PlacementDeps } from './placement.ts';
import { uploadRoutes } from './routes.ts';
import type { QuotaPort } from '../files/quota-port.ts';
import { createStaging, type FreeSpace, type Staging } from './staging.ts';
import { createStagingDirStore } from './staging-store.ts';
import { createTusService } from './tus/service.ts';
import { createUploadLeaseStore } from './tus/lease-store.ts';
import { createUploadStore } from './tus/store.ts';

export interface UploadsDeps {
  config: Config;
  db: Database;
  resolver: PathResolver;
  changes: ChangeSink;
  /** The work journal (files capability): a copy placed across file systems is built under it. */
  journal: WorkJournal;
  log: Logger;
  /** The activity log: one row per upload request (multipart) or placed upload (TUS). */
  activity: ActivitySink;
  /** Burrow's own folder of each space: upload parts are staged in its `uploads`. */
  own: OwnFolders;
  /** A `replace` (files/ops.ts) and taking one back (versions, trash). */
  files: PlacementDeps['files'];
  versions: PlacementDeps['versions'];
  trash: PlacementDeps['trash'];
  /** Quotas every upload is held against (quotas/). */
  quotas: QuotaPort;
  /** People's other requests go first: upload bodies yield to them (core/load.ts). */
  pace?: BodyPace;
  /** The sweep runs where this gate says (`uploads.sweep`: one instance of a cluster). */
  jobs?: JobGate;
}

/** The sweep's name among the background jobs. */
export const UPLOADS_SWEEP_JOB = 'uploads.sweep';

/** How often the sweep runs: a quarter of the TTL, between a quarter second and a minute. */
export function sweepInterval(ttlMs: number): number {
  return Math.min(60_000, Math.max(250, Math.floor(ttlMs / 4)));
}

export interface UploadsCapability extends Capability {
  /** For link holders' uploads (shares): the same receivers, placing through the resolver. */
  readonly multipart: ReturnType<typeof createMultipartReceiver>;
  readonly tus: ReturnType<typeof createTusService>;
  /** The free-space rule of every upload (UPLOAD_FREE_SPACE_RESERVE), for WebDAV's PUT. */
  readonly space: FreeSpace;
  /** Where uploads are staged and how they are placed, for the other ways a file arrives (Add from link). */
  readonly staging: Staging;
  readonly placement: Placement;
}

export function createUploadsCapability(deps: UploadsDeps): UploadsCapability {
  const { config, db, log } = deps;
  const u = config.uploads;
  const staging = createStaging({
    store: createStagingDirStore(db),
    reserveBytes: u.freeSpaceReserve,
    own: deps.own,
    shared: db.dialect === 'postgres',
  });
  if (staging.leftoversRemoved)
    log.info('removed part files of interrupted multipart uploads', { removed: staging.leftoversRemoved });
  const placement = createPlacement({
    resolver: deps.resolver,
    changes: deps.changes,
    journal: deps.journal,
    files: deps.files,
    versions: deps.versions,
    trash: deps.trash,
  });
  const tus = createTusService({
    store: createUploadStore(db),
    staging,
    placement,
    ttlMs: u.tusIncompleteTtlMs,
    log,
    activity: deps.activity,
    quotas: deps.quotas,
    ...(deps.pace ? { pace: deps.pace } : {}),
    building: (file) => deps.journal.building(file),
    // Several instances on one PostgreSQL: each upload's lock is also PostgreSQL's.
    ...(db.dialect === 'postgres' ? { leases: createUploadLeaseStore(db) } : {}),
  });
  const multipart = createMultipartReceiver({
    placement,
    staging,
    journal: deps.journal,
    activity: deps.activity,
    quotas: deps.quotas,
    limits: { maxFileSize: u.maxDirectUploadSize, maxFiles: u.maxFilesPerUpload },
    ...(deps.pace ? { pace: deps.pace } : {}),
  });
  const sweep = periodicJob({
    everyMs: sweepInterval(u.tusIncompleteTtlMs),
    first: 'now',
    log,
    failed: 'upload sweep failed',
    // On a cluster, one instance sweeps (the others' sweeps would race it for the same rows and
    // part files); its lease moves to another instance when it dies.
    ...(deps.jobs ? { job: { name: UPLOADS_SWEEP_JOB, gate: deps.jobs } } : {}),
    run: async () => {
      const removed = await tus.sweep();
      if (removed) log.info('expired uploads discarded', { removed });
      return removed;
    },
  });

  return {
    multipart,
    tus,
    space: { ensureSpace: staging.ensureSpace, guard: staging.guard },
    staging,
    placement,
    routes: uploadRoutes({ multipart, tus, chunkedEnabled: u.chunkedEnabled, publicUrl: config.server.publicUrl }),
    features: () => ({
      uploads: {
        enabled: true,
        chunked: u.chunkedEnabled,
        maxDirectUploadSize: u.maxDirectUploadSize,
        maxFilesPerUpload: u.maxFilesPerUpload,
      },
    }),
    start: sweep.start,
    stop: sweep.stop,
  };
}
