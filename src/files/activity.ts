// File operations in the activity log: one row per operation a person asked for (a batch of
// a hundred deletions is one row), naming who (the account, or the link for an anonymous link
// holder), from where, and what. Paths are written as the owner sees them: a link's token is
// its secret and never reaches the log. A batch names its first few paths and the count.
import type { ActivityEvent } from '../activity/service.ts';
import type { Caller } from '../core/caller.ts';
import { ownerView, type ResolvedPath } from './paths.ts';

export interface ActivitySink {
  record(event: ActivityEvent): void;
}

/** For services built without the log (tests, the shared editor's reads). */
export const noActivity: ActivitySink = { record() {} };

/** How many paths one row names; `count` says how many there were. */
export const LISTED_PATHS = 10;

/** The path of a resolved item as its owner sees it (a link's path without the token). */
export const shownPath = (r: ResolvedPath): string => ownerView(r).virtualPath;

/** The first paths of a batch and how many there were. */
export function listed(paths: readonly string[]): { paths: string[]; count: number } {
  return { paths: paths.slice(0, LISTED_PATHS), count: paths.length };
}

/** A success row for `caller`: account or link, address, and the token when one was used. */
export function fileEvent(caller: Caller, action: string, detail: Record<string, unknown>): ActivityEvent {
  return {
    action,
    outcome: 'success',
    userId: caller.userId,
    username: caller.username,
    ip: caller.address ?? null,
    detail: {
      ...detail,
      ...(caller.link?.shareId ? { shareId: caller.link.shareId } : {}),
      ...(caller.tokenId ? { tokenId: caller.tokenId } : {}),
    },
  };
}
