// A volume for unit tests that drive services without a server: a temporary root with
// volumes/Files, the real database file migrated, and a path resolver over it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database } from '../../src/db/database.ts';
import { collectMigrations, runMigrations } from '../../src/db/migrations.ts';
import type { PathResolver } from '../../src/files/paths.ts';
import { createPathResolver } from '../../src/files/resolver.ts';
import type { PersonalFolders } from '../../src/files/personal.ts';
import { createOwnFolders, type OwnFolders } from '../../src/files/own.ts';
import type { WorkJournal } from '../../src/files/journal.ts';
import { createChangeSink } from '../../src/changes.ts';
import { createVersions, type VersionService } from '../../src/versions/service.ts';
import { createVersionStore } from '../../src/versions/store.ts';

const src = path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'src');

export interface UnitVolume {
  root: string;
  /** The real path of the volume `Files`. */
  files: string;
  db: Database;
  resolver: PathResolver;
  /** Burrow's own folders (trash, versions, upload parts), under the config folder as a server keeps them. */
  own: OwnFolders;
}

export function unitVolume(prefix: string): UnitVolume {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  const files = path.join(root, 'volumes', 'Files');
  fs.mkdirSync(files, { recursive: true });
  const db = new Database(path.join(root, 'config', 'burrow.db'));
  runMigrations(db, collectMigrations(src));
  const personal: PersonalFolders = { folderFor: async () => path.join(root, 'users', 'x'), all: () => [] };
  const resolver = createPathResolver({
    volumeRoot: path.join(root, 'volumes'),
    userDirEnabled: false,
    userVolumesEnabled: false,
    personal,
    privateDirs: [path.join(root, 'config')],
  });
  return { root, files, db, resolver, own: createOwnFolders({ dataDir: path.join(root, 'config') }) };
}

/** The version keeper over a unit volume, writing its temporaries on `journal`. */
export function unitVersions(v: UnitVolume, journal: WorkJournal): VersionService {
  return createVersions({
    store: createVersionStore(v.db),
    resolver: v.resolver,
    roots: () => [v.files],
    changes: createChangeSink(),
    journal,
    own: v.own,
  });
}
