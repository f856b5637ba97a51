// The archive capability's answers for what went wrong (spec §7 ARCHIVE_* codes). AppError for
// now; the codes and statuses are the contract, wherever the catalogue ends up living.
import { AppError } from '../http/errors.ts';

export const badPosition = (what = 'That name points outside the archive.') => new AppError(400, what, 'ARCHIVE_BAD_POSITION');
export const entryNotFound = (name: string) => new AppError(404, `"${name}" is not in the archive.`, 'ARCHIVE_ENTRY_NOT_FOUND');
export const encrypted = (name?: string) =>
  new AppError(409, name ? `"${name}" is protected by a password.` : 'The archive is protected by a password.', 'ARCHIVE_ENCRYPTED');
export const tooManyEntries = (limit: number) =>
  new AppError(413, `The archive holds more than ${limit} entries (ARCHIVE_MAX_ENTRIES).`, 'ARCHIVE_TOO_MANY_ENTRIES');
export const tooLargeToBrowse = (limit: number) =>
  new AppError(413, `Compressed tar archives larger than ${limit} bytes cannot be browsed (MAX_BROWSABLE_ARCHIVE_SIZE); extract it instead.`, 'ARCHIVE_TOO_LARGE_TO_BROWSE');
export const unreadable = (detail?: string) =>
  new AppError(422, detail ? `The archive is damaged or unreadable: ${detail}` : 'The archive is damaged or unreadable.', 'ARCHIVE_UNREADABLE');
export const unsupported = () => new AppError(415, 'This is not an archive format Burrow can open.', 'ARCHIVE_UNSUPPORTED');
export const noSpace = (need: number, free: number) =>
  new AppError(507, `Not enough free space: the extraction needs ${need} bytes and ${free} are free.`, 'NO_SPACE');
export const bomb = (detail: string) => new AppError(422, `Extraction stopped: ${detail}`, 'ARCHIVE_UNREADABLE');

/** Is this one of ours (already an answer), as opposed to a library's parse error? */
export const isAppError = (err: unknown): err is AppError => err instanceof AppError;
