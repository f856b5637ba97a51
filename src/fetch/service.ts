// "Add from link": a file fetched from a web address into a folder, as an upload like any other —
// the destination checked before anything is fetched and again when the file is placed, the bytes
// staged on the destination's disk under the work journal, placed whole under a free name
// (`name (1)`), one activity row. Starting answers once the other server's answer has begun
// (refusals — the address, its status, its size, the space — come as errors then); the body then
// streams in the background as a job the person follows in the tray and may cancel. Each job is a
// row (store.ts), so every instance of a cluster answers it: the instance receiving the body
// writes the bytes received at most every PROGRESS_MS (not per chunk), then how it ended. A
// cancel asked of another instance marks the row; the receiving instance reads the mark as often
// and stops. A running row whose instance is gone (its lease lapsed, or this process's previous
// start) is failed with FETCH_INTERRUPTED by whoever reads it; the work journal removes its part
// file (files/transfer.ts takes a dead instance's rows over).
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { AppError, fromFsError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import type { Logger } from '../core/log.ts';
import { fileEvent, listed, type ActivitySink } from '../files/activity.ts';
import type { WorkJournal } from '../files/journal.ts';
import { NO_HOLD, type Hold, type QuotaPort } from '../files/quota-port.ts';
import { writeBody, type BodyWrite } from '../uploads/body-writer.ts';
import { toFileItem, type Placement, type UploadTarget } from '../uploads/placement.ts';
import { formatBytes, removeQuietly, type Staging } from '../uploads/staging.ts';
import { VERSION } from '../version.ts';
import type { AddressPolicy } from './address.ts';
import type { FetchEnd, FetchRow, FetchStore } from './store.ts';
import { fetchedName } from './name.ts';
import { openRemote, unreachable, webAddress } from './remote.ts';
import type { FetchBody, FetchJob } from './wire.ts';

/** Fetches one account may run at once. */
export const RUNNING_PER_ACCOUNT = 4;
/** Finished jobs kept per account (the newest), for at most KEEP_MS. */
const KEPT_PER_ACCOUNT = 20;
const KEEP_MS = 60 * 60 * 1000;
/** How often a running fetch writes its bytes received and reads whether it was cancelled elsewhere. */
export const PROGRESS_MS = 500;

export interface FetchService {
  start(caller: Caller, body: FetchBody): Promise<FetchJob>;
  list(caller: Caller): { jobs: FetchJob[] };
  get(caller: Caller, id: string): FetchJob;
  /** Cancels a running fetch (its part file is removed) or forgets a finished one. */
  cancel(caller: Caller, id: string): FetchJob;
  /** Cancels every running fetch (shutdown). */
  stop(): Promise<void>;
}

export interface FetchDeps {
  placement: Placement;
  staging: Staging;
  journal: WorkJournal;
  activity: ActivitySink;
  policy: AddressPolicy;
  /** The bytes are held against the destination's quotas: all of a Content-Length at once, else as they stream. */
  quotas: QuotaPort;
  maxSize: number;
  timeoutMs: number;
  log: Logger;
  /** The fetches' rows. */
  store: FetchStore;
  /** This instance, and whether another's running fetch still has its instance (cluster/leases.ts). */
  owner: { readonly instance: string; alive(owner: string): boolean };
}

/** A fetch this instance receives. */
interface Job {
  view: FetchJob;
  userId: string;
  controller: AbortController;
  done: Promise<void>;
}

const viewOf = (r: FetchRow): FetchJob => ({
  id: r.id,
  url: r.url,
  uploadTo: r.upload_to,
  name: r.name,
  state: r.state,
  received: r.received,
  total: r.total,
  startedAt: r.started_at,
  ...(r.finished_at ? { finishedAt: r.finished_at } : {}),
  ...(r.item ? { item: JSON.parse(r.item) as FetchJob['item'] } : {}),
  ...(r.error_code ? { error: { code: r.error_code, message: r.error_message ?? '' } } : {}),
});

function tooLarge(limit: number, size?: number): AppError {
  return new AppError(
    'FETCH_TOO_LARGE',
    `${size === undefined ? 'The file is' : `The file is ${formatBytes(size)},`} larger than the ${formatBytes(limit)} this server fetches (FETCH_MAX_SIZE). Nothing was kept.`,
  );
}

export function createFetchService(deps: FetchDeps): FetchService {
  const { placement, staging, journal, policy, store, owner } = deps;
  /** The fetches this instance receives now. */
  const jobs = new Map<string, Job>();
  const userAgent = `Burrow/${VERSION}`;

  /** Drops finished fetches past their time or beyond the newest KEPT_PER_ACCOUNT of an account. */
  function prune(userId: string) {
    store.prune(userId, KEPT_PER_ACCOUNT, Date.now() - KEEP_MS);
  }

  /** A row as it stands: running on an instance that is gone, it is failed now. */
  function current(row: FetchRow, alive: Map<string, boolean>): FetchRow {
    if (row.state !== 'running' || row.owner === owner.instance) return row;
    if (!alive.has(row.owner)) alive.set(row.owner, owner.alive(row.owner));
    if (alive.get(row.owner)) return row;
    const e = new AppError('FETCH_INTERRUPTED');
    store.end(
      row.id,
      { state: 'failed', received: row.received, error: { code: e.code, message: e.message } },
      new Date(),
    );
    return store.get(row.id) ?? row;
  }

  function ofUser(userId: string): FetchRow[] {
    const alive = new Map<string, boolean>();
    return store.ofUser(userId).map((r) => current(r, alive));
  }

  function mine(caller: Caller, id: string): FetchRow {
    const row = store.get(id);
    if (!row || row.user_id !== caller.userId) throw new AppError('FETCH_NOT_FOUND');
    return current(row, new Map());
  }

  async function start(caller: Caller, body: FetchBody): Promise<FetchJob> {
    const url = webAddress(body.url);
    const running = ofUser(caller.userId).filter((r) => r.state === 'running');
    if (running.length >= RUNNING_PER_ACCOUNT)
      throw new AppError(
        'FETCH_TOO_MANY',
        `${RUNNING_PER_ACCOUNT} fetches are running already; wait for one to finish or cancel one.`,
      );
    const target = (filename: string): UploadTarget => ({
      uploadTo: body.uploadTo,
      relativePath: '',
      filename,
      conflict: body.conflict ?? 'rename',
    });
    // The destination and the right to upload there, before anything is fetched.
    await placement.check(caller, target(fetchedName(body.name, undefined, url)));

    const controller = new AbortController();
    const { response, url: source } = await openRemote(url, {
      policy,
      timeoutMs: deps.timeoutMs,
      signal: controller.signal,
      userAgent,
    });
    const declared = response.headers['content-length'];
    const total = declared !== undefined && /^\d+$/.test(declared) ? Number(declared) : null;
    let part = '';
    let row: string | null = null;
    let hold: Hold = NO_HOLD;
    try {
      if (total !== null && total > deps.maxSize) throw tooLarge(deps.maxSize, total);
      const name = fetchedName(body.name, response.headers['content-disposition'], source);
      const checked = await placement.check(caller, target(name));
      const skipped = checked.conflict === 'skip' ? await placement.taken(checked) : null;
      if (skipped) {
        response.destroy();
        const job = track(
          caller,
          controller,
          { url, uploadTo: body.uploadTo, name, total },
          'done',
          toFileItem(skipped),
        );
        return { ...job.view };
      }
      const place = await staging.placeFor(checked.folder.space.root, checked.folder.realPath);
      await staging.ensureSpace(place.dir, total ?? 0);
      hold = deps.quotas.hold(deps.quotas.chargeFor(caller, checked.folder.space), total ?? 0);
      part = await staging.createPart(place, 'mp', undefined, (file) => {
        row = journal.begin(file);
      });
      const job = track(caller, controller, { url, uploadTo: body.uploadTo, name, total }, 'running');
      const staged = { part, row: row as string | null, dir: place.dir, hold };
      part = '';
      row = null;
      hold = NO_HOLD;
      job.done = receive(caller, job, response, staged, target(name), source);
      return { ...job.view };
    } catch (err) {
      response.destroy();
      throw unreachable(err, source);
    } finally {
      hold.release();
      if (part) {
        await removeQuietly(part);
        await staging.tidy(part);
      }
      if (row) journal.end(row);
    }
  }

  /** A fetch's record, kept for the tray: running, or done before any byte was wanted. */
  function track(
    caller: Caller,
    controller: AbortController,
    what: { url: URL; uploadTo: string; name: string; total: number | null },
    state: 'running' | 'done',
    item?: FetchJob['item'],
  ): Job {
    const now = new Date().toISOString();
    const job: Job = {
      view: {
        id: randomBytes(12).toString('base64url'),
        url: what.url.href,
        uploadTo: what.uploadTo,
        name: what.name,
        state,
        received: 0,
        total: what.total,
        startedAt: now,
        ...(state === 'done' ? { finishedAt: now, item } : {}),
      },
      userId: caller.userId,
      controller,
      done: Promise.resolve(),
    };
    const v = job.view;
    store.insert({
      id: v.id,
      user_id: caller.userId,
      owner: owner.instance,
      url: v.url,
      upload_to: v.uploadTo,
      name: v.name,
      state,
      received: 0,
      total: v.total,
      started_at: now,
      ...(item ? { item } : {}),
    });
    if (state === 'running') jobs.set(v.id, job);
    prune(caller.userId);
    return job;
  }

  async function receive(
    caller: Caller,
    job: Job,
    response: IncomingMessage,
    staged: { part: string; row: string | null; dir: string; hold: Hold },
    target: UploadTarget,
    source: URL,
  ): Promise<void> {
    const { view } = job;
    // The job says done, failed or cancelled only once its part file is gone.
    let ended: Omit<FetchEnd, 'received'>;
    let landed = false;
    // The bytes received, written at most every PROGRESS_MS; a cancel asked on another instance
    // is read back at the same time.
    const progress = setInterval(() => {
      try {
        if (store.progress(view.id, view.received)) job.controller.abort();
      } catch (err) {
        deps.log.warn("could not write a fetch's progress", { err });
      }
    }, PROGRESS_MS);
    progress.unref();
    try {
      const out = await fsp.open(staged.part, 'r+');
      try {
        let write: BodyWrite | undefined;
        const guard = await staging.guard(staged.dir, () => write?.written ?? 0);
        write = writeBody(response, out.fd, 0, {
          signal: job.controller.signal,
          inspect: (chunk) => {
            const now = view.received + chunk.length;
            if (now > deps.maxSize) throw tooLarge(deps.maxSize);
            if (view.total !== null && now > view.total)
              throw new AppError('FETCH_UNREACHABLE', `${source.host} sent more than the length it announced.`);
            guard(chunk);
            // Without a length nothing was held up front: each chunk is, before it is kept.
            if (view.total === null) staged.hold.add(chunk.length);
            view.received = now;
          },
        });
        await write.done;
        if (view.total !== null && view.received < view.total)
          throw new AppError('FETCH_UNREACHABLE', `${source.host} ended the transfer early.`);
        await out.datasync();
      } finally {
        await out.close();
      }
      // Placed through the resolver again: rights and folders may have changed meanwhile.
      const placed = await placement.place(caller, target, staged.part);
      staged.hold.land([placed.realPath]);
      landed = true;
      if (placed.outcome !== 'skipped')
        deps.activity.record(
          fileEvent(caller, 'files.upload', {
            ...listed([placed.shown]),
            bytes: placed.size,
            method: 'url',
            source: source.origin,
          }),
        );
      ended = { state: 'done', item: toFileItem(placed) };
    } catch (err) {
      const e = job.controller.signal.aborted
        ? new AppError('FETCH_CANCELLED')
        : err instanceof AppError
          ? err
          : (fromFsError(err) ?? unreachable(err, source));
      if (!(e instanceof AppError)) deps.log.error('fetch failed', { error: String(err) });
      ended =
        e instanceof AppError
          ? {
              state: e.code === 'FETCH_CANCELLED' ? 'cancelled' : 'failed',
              error: { code: e.code, message: e.message },
            }
          : { state: 'failed', error: { code: 'INTERNAL', message: 'The fetch failed on the server.' } };
    } finally {
      if (!landed) staged.hold.release();
      response.destroy();
      await removeQuietly(staged.part);
      if (staged.row) journal.end(staged.row);
      await staging.tidy(staged.part);
      clearInterval(progress);
    }
    store.end(view.id, { ...ended, received: view.received }, new Date());
    jobs.delete(view.id);
    prune(caller.userId);
  }

  return {
    start,
    list(caller) {
      prune(caller.userId);
      return { jobs: ofUser(caller.userId).map(viewOf) };
    },
    get: (caller, id) => viewOf(mine(caller, id)),
    cancel(caller, id) {
      const row = mine(caller, id);
      if (row.state === 'running') {
        // Received here: stopped now; elsewhere: the receiving instance reads the mark.
        const here = jobs.get(id);
        if (here) here.controller.abort();
        else store.askCancel(id);
      } else store.remove(id);
      return viewOf(row);
    },
    async stop() {
      const running = [...jobs.values()];
      for (const j of running) j.controller.abort();
      await Promise.allSettled(running.map((j) => j.done));
    },
  };
}
