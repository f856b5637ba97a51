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

/**
 * A run judged by an upper bound only (a tar.gz's trailer) that cannot go on by it: the bound is
 * refused (over the free space, a quota, a limit) or the archive writes past it (a gzip of
 * several members, a tar over 4 GiB, a trailer that lies). Not an answer: the caller lists the
 * archive and judges its exact sizes (archives/service.ts).
 */
export class NeedsListing extends Error {
  constructor(why: string) {
    super(`the archive must be listed first: ${why}`);
    this.name = 'NeedsListing';
  }
}

/** Is this one of ours (already an answer), as opposed to a library's parse error? */
export const isAppError = (err: unknown): err is AppError => err instanceof AppError;

/**
 * What a caller's function threw (a visitor, a `take`: a limit, the extraction's abort, a full
 * disk), carried through a reader that answers its own failures as ARCHIVE_UNREADABLE and
 * handed back as it is.
 */
export class Passed {
  readonly err: unknown;
  constructor(err: unknown) {
    this.err = err;
  }
}

/** What a reader answers for what it caught: the caller's own error as it was, ours as they are, anything else ARCHIVE_UNREADABLE. */
export function readerError(err: unknown): unknown {
  if (err instanceof Passed) return err.err;
  return isAppError(err) ? err : unreadable((err as Error)?.message ?? String(err));
}

/**
 * Chunks handed to a caller's `take` one at a time, each while the next is produced into
 * another buffer: `hand` waits for the last take before starting the next, so at most one
 * chunk is held. What `take` throws comes back as Passed.
 */
export class Handoff {
  private pending: Promise<void> = Promise.resolve();
  private readonly take: (chunk: Buffer) => Promise<void>;
  constructor(take: (chunk: Buffer) => Promise<void>) {
    this.take = take;
  }

  async hand(chunk: Buffer): Promise<void> {
    await this.pending;
    const next = this.take(chunk).catch((err: unknown) => {
      throw new Passed(err);
    });
    next.catch(() => {});
    this.pending = next;
  }

  /** The last take done (what it threw, as Passed). */
  drain(): Promise<void> {
    return this.pending;
  }

  /** The last take over, however it ended (before a failure is answered). */
  settled(): Promise<void> {
    return this.pending.catch(() => {});
  }
}
