// Wire shapes, as the server's routes answer them. The one place the UI names a field of an
// answer: screens import these and read nothing else.
//
// Every type here comes from the server's own wire.ts schemas or from a row's declared answer
// (ApiAnswer, src/contract.ts) — types only, nothing of the server is bundled — so the UI
// cannot drift from what the server answers.
export type {
  FileItem,
  Access,
  ReadOnlyReason,
  ItemAnswer,
  TransferAnswer as MoveAnswer,
  DeleteImpact,
  ConflictsAnswer,
} from '../../../src/files/wire.ts';
export type { UploadedItem } from '../../../src/uploads/wire.ts';
export type { Listing, Usage } from '../../../src/browse/wire.ts';
export type { FolderPrefsAnswer as FolderPrefs } from '../../../src/folderprefs/wire.ts';
export type { Favorite } from '../../../src/favorites/wire.ts';
export type { TagList, TaggedFiles, TaggedItem } from '../../../src/tags/wire.ts';
export type TagSummary = import('../../../src/tags/wire.ts').TagList['tags'][number];

export type { WireUser as User } from '../../../src/auth/wire.ts';
export type { AdminUser } from '../../../src/users/wire.ts';
export type { AuthStatus } from '../../../src/auth/wire.ts';
export type { Volume, Metadata } from '../../../src/browse/wire.ts';
export type { SearchItem } from '../../../src/search/wire.ts';
export type { FolderSizeRecord as FolderSize } from '../../../src/foldersize/wire.ts';
export type { TrashEntry, RestoreAnswer as TrashRestoreAnswer } from '../../../src/trash/wire.ts';
export type { VersionEntryWire as Version } from '../../../src/versions/wire.ts';
export type { WireToken as ApiToken } from '../../../src/tokens/wire.ts';
export type { ActivityRow, ActivityPage, AddressReport as AddressDiagnosis } from '../../../src/activity/wire.ts';
export type { UserVolumeWire as UserVolume } from '../../../src/volumes/wire.ts';
export type { ArchiveListing, ExtractEvent } from '../../../src/archives/wire.ts';
import type { DeleteEvents } from '../../../src/files/wire.ts';
import type { FeatureSections, Features as WireFeatures } from '../../../src/system/wire.ts';
import type { SettingsView } from '../../../src/settings/wire.ts';
import type { ApiAnswer, ApiBody } from '../../../src/contract.ts';

/**
 * `GET /api/features` as the page keeps it: the capabilities' sections, and `version` and
 * `network` once the answer came (the page starts with none).
 */
export type Features = FeatureSections & Partial<Pick<WireFeatures, 'version' | 'network'>>;

/** One line of `POST /api/files/delete-stream`: the server's DeleteEvents, each with its `type`. */
export type DeleteEvent = { [K in keyof DeleteEvents]: { type: K } & DeleteEvents[K] }[keyof DeleteEvents];

export type SearchAnswer = ApiAnswer<'GET /api/search'>;
export type IndexState = ApiAnswer<'GET /api/admin/index'>;
/** `POST /api/folder-size/batch`: one record per asked path, in order. */
export type FolderSizeBatch = ApiAnswer<'POST /api/folder-size/batch'>;

/** `GET/PATCH /api/settings` (system sections only for administrators). */
export type Settings = SettingsView;
/** A change `PATCH /api/settings` takes. */
export type SettingsChange = ApiBody<'PATCH /api/settings'>;

/** `GET /api/admin/browse-directories` (absolute host paths; administrators only). */
export type ServerDirectories = ApiAnswer<'GET /api/admin/browse-directories'>;

export const isDir = (item: { kind: string }) => item.kind === 'directory';
