// The archive capability's refusals (spec §7 ARCHIVE_* codes), from the one catalogue.
import { AppError } from '../core/errors.ts';

export const badPosition = (what?: string) => new AppError('ARCHIVE_BAD_POSITION', what);
export const entryNotFound = (name: string) =>
  new AppError('ARCHIVE_ENTRY_NOT_FOUND', `"${name}" is not in the archive.`);
export const encrypted = (name?: string) =>
  new AppError('ARCHIVE_ENCRYPTED', name ? `"${name}" is protected by a password.` : undefined);
export const tooManyEntries = (limit: number) =>
  new AppError('ARCHIVE_TOO_MANY_ENTRIES', `The archive holds more than ${limit} entries (ARCHIVE_MAX_ENTRIES).`);
export const tooLargeToBrowse = (limit: number) =>
  new AppError(
    'ARCHIVE_TOO_LARGE_TO_BROWSE',
    `Compressed tar archives larger than ${limit} bytes cannot be browsed (MAX_BROWSABLE_ARCHIVE_SIZE); extract it instead.`,
  );
export const unreadable = (detail?: string) =>
  new AppError('ARCHIVE_UNREADABLE', detail ? `The archive is damaged or unreadable: ${detail}` : undefined);
export const unsupported = () => new AppError('ARCHIVE_UNSUPPORTED');
export const noSpace = (need: number, free: number) =>
  new AppError('NO_SPACE', `Not enough free space: the extraction needs ${need} bytes and ${free} are free.`);
export const bomb = (detail: string) => new AppError('ARCHIVE_UNREADABLE', `Extraction stopped: ${detail}`);

/** Is this one of ours (already an answer), as opposed to a library's parse error? */
export const isAppError = (err: unknown): err is AppError => err instanceof AppError;
