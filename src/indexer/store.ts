// The SQL of the indexes (main thread only: it holds the one connection). Everything is keyed by
// (root, parent folder, name); a subtree is a range on `dir`, so a folder's descendants are found
// without recursion: dir = 'a/b' OR 'a/b/' <= dir < 'a/b0' ('0' follows '/').
import type { Database } from '../db/database.ts';
import { docStamp, joinRel, splitRel, type DocRecord, type EntryRecord } from './protocol.ts';

/**
 * 'pending': baseline due; 'sized': folder sizes known, the catalogue of names still filling;
 * 'ready'; 'dropping': no space serves it any more, its rows are being removed (kept through a
 * restart, so a drop cut short is finished, and the id is not reused while rows remain).
 */
export interface RootRow {
  id: number;
  path: string;
  state: 'pending' | 'sized' | 'ready' | 'dropping';
  walked_at: number | null;
}
export interface EntryRow {
  id: number;
  root_id: number;
  dir: string;
  name: string;
  is_dir: number;
  size: number;
  mtime: number;
  entries: number | null;
  total_size: number | null;
  total_entries: number | null;
  complete: number | null;
  checked_at: number | null;
  updated_at: number | null;
}

const COLUMNS =
  'id, root_id, dir, name, is_dir, size, mtime, entries, total_size, total_entries, complete, checked_at, updated_at';
const ROW = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
/** Multi-row upserts: one call into the database per up to 64 rows instead of one per row. */
const CHUNKS = [64, 16, 4, 1];
const upsertSql = (
  rows: number,
) => `INSERT INTO idx_entries (root_id, dir, name, key, is_dir, size, mtime, entries, total_size, total_entries, complete, checked_at, updated_at)
  VALUES ${Array.from({ length: rows }, () => ROW).join(', ')}
  ON CONFLICT (root_id, dir, name) DO UPDATE SET is_dir = excluded.is_dir, size = excluded.size, mtime = excluded.mtime,
    entries = excluded.entries, total_size = excluded.total_size, total_entries = excluded.total_entries,
    complete = excluded.complete, checked_at = excluded.checked_at, updated_at = excluded.updated_at`;
const UPSERTS = new Map(CHUNKS.map((n) => [n, upsertSql(n)]));

/** Lower-cased, NFC: the form names are compared in. */
export function nameKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

/** A photo's or song's fact as search compares it (camera:, artist:, album:): lower-cased NFC. */
export const factKey = (value: string | null): string | null => (value === null ? null : nameKey(value));

/** SQL condition (and its values) for "below `rel`" inside one root, `rel` itself excluded. */
export function below(rel: string): { sql: string; params: string[] } {
  if (rel === '') return { sql: '1 = 1', params: [] };
  return { sql: '(dir = ? OR (dir >= ? AND dir < ?))', params: [rel, `${rel}/`, `${rel}0`] };
}

/** A change to one item as its ancestors see it: recursive totals, and the parent's direct figures. */
export interface Delta {
  size: number;
  entries: number;
  directSize: number;
  directEntries: number;
}

/** What an entry adds to its ancestors (an absent entry adds nothing). */
export function contribution(
  row: Pick<EntryRow, 'is_dir' | 'size' | 'total_size' | 'total_entries'> | undefined,
): Delta {
  if (!row) return { size: 0, entries: 0, directSize: 0, directEntries: 0 };
  if (row.is_dir)
    return { size: row.total_size ?? 0, entries: (row.total_entries ?? 0) + 1, directSize: 0, directEntries: 1 };
  return { size: row.size, entries: 1, directSize: row.size, directEntries: 1 };
}

export function difference(after: Delta, before: Delta): Delta {
  return {
    size: after.size - before.size,
    entries: after.entries - before.entries,
    directSize: after.directSize - before.directSize,
    directEntries: after.directEntries - before.directEntries,
  };
}

export class IndexStore {
  readonly db: Database;
  /** Keep the trigram name index (search indexing on). */
  readonly names: boolean;
  constructor(db: Database, names = true) {
    this.db = db;
    this.names = names;
  }

  meta(key: string): string | undefined {
    return this.db.get<{ value: string }>('SELECT value FROM idx_meta WHERE key = ?', [key])?.value;
  }

  setMeta(key: string, value: string): void {
    this.db.run(
      'INSERT INTO idx_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      [key, value],
    );
  }

  roots(): RootRow[] {
    return this.db.all<RootRow>('SELECT id, path, state, walked_at FROM idx_roots ORDER BY length(path) DESC');
  }

  addRoot(path: string, now: number): RootRow {
    this.db.run(
      "INSERT INTO idx_roots (path, state, created_at) VALUES (?, 'pending', ?) ON CONFLICT (path) DO NOTHING",
      [path, now],
    );
    return this.db.get<RootRow>('SELECT id, path, state, walked_at FROM idx_roots WHERE path = ?', [path])!;
  }

  setRootState(id: number, state: RootRow['state'], walkedAt: number | null): void {
    this.db.run('UPDATE idx_roots SET state = ?, walked_at = coalesce(?, walked_at) WHERE id = ?', [
      state,
      walkedAt,
      id,
    ]);
  }

  /** Forgets a root whose rows are all gone (deleteChunk(id, '') answered true). */
  removeRoot(id: number): void {
    this.db.run('DELETE FROM idx_roots WHERE id = ?', [id]);
  }

  /** The last time written into `checked_at`: stamps never go back, even if the clock does. */
  private lastStamp = 0;

  /**
   * A time every row written from now on is stamped with at least (`checked_at`: a walk's rows,
   * files too, and listed folders): rows below a folder stamped before it were not seen again.
   */
  stamp(now = Date.now()): number {
    this.lastStamp = Math.max(this.lastStamp, now);
    return this.lastStamp;
  }

  /**
   * A walk's start: a stamp every row written from now on has at least and no row written
   * before has (one past the last when that was in this millisecond), so "stamped before the
   * walk began" is exact — a row written in the millisecond a walk of a folder above it begins
   * is not taken for the walk's own. Rows' times run ahead of the clock by a millisecond per
   * walk begun within one.
   */
  begin(now = Date.now()): number {
    this.lastStamp = Math.max(this.lastStamp + 1, now);
    return this.lastStamp;
  }

  /** Writes one batch from the walker (tests, small batches): everything, in one go. */
  write(rootId: number, entries: EntryRecord[], docs: DocRecord[], now: number): void {
    while (entries.length || docs.length) this.writeFor(rootId, entries, docs, now, Number.POSITIVE_INFINITY);
  }

  /**
   * Writes rows (then documents) from the front of the arrays, removing what it wrote, for at
   * most `budgetMs` in one transaction: each slice blocks the event loop only that long. New
   * rows enter the name index in the same transaction, in bulk (no per-row trigger). A row
   * written again keeps its id, its name in the name index and its text until new text comes
   * (a document whose text is null has none any more).
   */
  writeFor(rootId: number, entries: EntryRecord[], docs: DocRecord[], now: number, budgetMs: number): void {
    const until = performance.now() + budgetMs;
    const at = this.stamp(now);
    this.db.transaction(() => {
      const before = this.names ? this.maxId() : 0;
      while (entries.length && performance.now() <= until) {
        const n = CHUNKS.find((c) => c <= entries.length)!;
        const params: (string | number | null)[] = [];
        for (const e of entries.splice(0, n)) {
          params.push(
            rootId,
            e.dir,
            e.name,
            nameKey(e.name),
            e.isDir ? 1 : 0,
            e.size,
            e.mtime,
            e.isDir ? (e.entries ?? 0) : null,
            e.isDir ? (e.totalSize ?? 0) : null,
            e.isDir ? (e.totalEntries ?? 0) : null,
            e.isDir ? (e.complete === false ? 0 : 1) : null,
            at,
            e.isDir ? at : null,
          );
        }
        this.db.run(UPSERTS.get(n)!, params);
      }
      if (this.names)
        this.db.run(
          "INSERT INTO idx_names (rowid, name) SELECT id, name FROM idx_entries WHERE id > ? AND name <> ''",
          [before],
        );
      while (docs.length && performance.now() <= until) {
        const d = docs.shift()!;
        const id = this.db.get<{ id: number }>(
          'SELECT id FROM idx_entries WHERE root_id = ? AND dir = ? AND name = ?',
          [rootId, d.dir, d.name],
        )?.id;
        if (id === undefined) continue;
        if (d.media) {
          const m = d.media;
          this.db.run(
            `INSERT INTO idx_media (id, taken, camera, camera_key, artist, artist_key, album, album_key)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET taken = excluded.taken,
            camera = excluded.camera, camera_key = excluded.camera_key, artist = excluded.artist,
            artist_key = excluded.artist_key, album = excluded.album, album_key = excluded.album_key`,
            [id, m.taken, m.camera, factKey(m.camera), m.artist, factKey(m.artist), m.album, factKey(m.album)],
          );
          continue;
        }
        if (d.state)
          this.db.run(
            `INSERT INTO idx_doc_state (id, kind, status, pages, at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, status = excluded.status, pages = excluded.pages, at = excluded.at`,
            [id, d.state.kind, d.state.status, d.state.pages ?? null, now],
          );
        else this.db.run('DELETE FROM idx_doc_state WHERE id = ?', [id]);
        // Deferred (the walk's reading time was spent): the text known before stays.
        if (d.state?.status === 'deferred') continue;
        this.db.run('DELETE FROM idx_docs WHERE rowid = ?', [id]);
        if (d.text !== null) this.db.run('INSERT INTO idx_docs (rowid, body) VALUES (?, ?)', [id, d.text]);
      }
    });
  }

  private maxId(): number {
    return this.db.get<{ m: number | null }>('SELECT max(id) AS m FROM idx_entries')?.m ?? 0;
  }

  /** Removes rows by id, with their names and document text. */
  private removeIds(ids: number[]): void {
    if (!ids.length) return;
    const list = JSON.stringify(ids);
    if (this.names) this.db.run('DELETE FROM idx_names WHERE rowid IN (SELECT value FROM json_each(?))', [list]);
    this.db.run('DELETE FROM idx_docs WHERE rowid IN (SELECT value FROM json_each(?))', [list]);
    this.db.run('DELETE FROM idx_doc_state WHERE id IN (SELECT value FROM json_each(?))', [list]);
    this.db.run('DELETE FROM idx_media WHERE id IN (SELECT value FROM json_each(?))', [list]);
    this.db.run('DELETE FROM idx_entries WHERE id IN (SELECT value FROM json_each(?))', [list]);
  }

  entry(rootId: number, rel: string): EntryRow | undefined {
    const [dir, name] = splitRel(rel);
    return this.db.get<EntryRow>(`SELECT ${COLUMNS} FROM idx_entries WHERE root_id = ? AND dir = ? AND name = ?`, [
      rootId,
      dir,
      name,
    ]);
  }

  children(rootId: number, rel: string): EntryRow[] {
    return this.db.all<EntryRow>(`SELECT ${COLUMNS} FROM idx_entries WHERE root_id = ? AND dir = ? AND name <> ''`, [
      rootId,
      rel,
    ]);
  }

  /**
   * The documents at or below `rel` whose text the index holds (read, or found to have none
   * that can be read), as a walk's `known`: deferred ones are read again.
   */
  knownDocuments(rootId: number, rel: string): Map<string, string> {
    const b = below(rel);
    const [dir, name] = splitRel(rel);
    const rows = this.db.all<{ dir: string; name: string; size: number; mtime: number }>(
      `SELECT dir, name, size, mtime FROM idx_entries WHERE root_id = ? AND is_dir = 0
      AND (${b.sql} OR (dir = ? AND name = ?))
      AND id IN (SELECT rowid FROM idx_docs UNION SELECT id FROM idx_doc_state UNION SELECT id FROM idx_media)
      AND id NOT IN (SELECT id FROM idx_doc_state WHERE status = 'deferred')`,
      [rootId, ...b.params, dir, name],
    );
    return new Map(rows.map((r) => [joinRel(r.dir, r.name), docStamp(r.mtime, r.size)]));
  }

  /**
   * Moves the row at `from` and every row below it to `to` (a rename or a move Burrow made), in
   * one transaction: the rows keep their ids, so documents keep their text, search finds them
   * at the new place at once and the walk that follows reads none of them again. Answers the
   * moved row, or undefined when it cannot (not indexed, rows at `to` already, more than `most`
   * rows below, or a root's own row): the caller forgets `from` and walks `to` as before. The
   * ancestors' figures are the caller's (propagate).
   */
  moveSubtree(
    from: { rootId: number; rel: string },
    to: { rootId: number; rel: string },
    most = 50_000,
  ): EntryRow | undefined {
    if (from.rel === '' || to.rel === '') return undefined;
    const old = this.entry(from.rootId, from.rel);
    if (!old || this.entry(to.rootId, to.rel)) return undefined;
    const b = below(from.rel);
    if (old.is_dir) {
      const n = this.db.get<{ n: number }>(
        `SELECT count(*) AS n FROM (SELECT 1 FROM idx_entries WHERE root_id = ? AND ${b.sql} LIMIT ?)`,
        [from.rootId, ...b.params, most + 1],
      )!.n;
      if (n > most) return undefined;
    }
    const [dir, name] = splitRel(to.rel);
    try {
      this.db.transaction(() => {
        // substr counts characters, as a spread string does (an emoji is one, not two).
        if (old.is_dir)
          this.db.run(`UPDATE idx_entries SET root_id = ?, dir = ? || substr(dir, ?) WHERE root_id = ? AND ${b.sql}`, [
            to.rootId,
            to.rel,
            [...from.rel].length + 1,
            from.rootId,
            ...b.params,
          ]);
        this.db.run('UPDATE idx_entries SET root_id = ?, dir = ?, name = ?, key = ? WHERE id = ?', [
          to.rootId,
          dir,
          name,
          nameKey(name),
          old.id,
        ]);
        if (this.names && name !== old.name) {
          this.db.run('DELETE FROM idx_names WHERE rowid = ?', [old.id]);
          this.db.run('INSERT INTO idx_names (rowid, name) VALUES (?, ?)', [old.id, name]);
        }
      });
    } catch {
      return undefined; // rows at the destination's place below `to` (UNIQUE): walked as before
    }
    return this.entry(to.rootId, to.rel);
  }

  /** Removes `rel` and everything below it, a chunk at a time; returns false while rows remain. */
  deleteChunk(rootId: number, rel: string, chunk = 2000): boolean {
    const b = below(rel);
    const [dir, name] = splitRel(rel);
    const removed = this.db.transaction(() => {
      const ids = this.db
        .all<{ id: number }>(`SELECT id FROM idx_entries WHERE root_id = ? AND ${b.sql} LIMIT ?`, [
          rootId,
          ...b.params,
          chunk,
        ])
        .map((r) => r.id);
      this.removeIds(ids);
      return ids.length;
    });
    if (removed >= chunk) return false;
    if (rel !== '') {
      const self = this.db.get<{ id: number }>(
        'SELECT id FROM idx_entries WHERE root_id = ? AND dir = ? AND name = ?',
        [rootId, dir, name],
      );
      if (self) this.db.transaction(() => this.removeIds([self.id]));
    }
    return true;
  }

  /**
   * Removes, a chunk at a time, the rows below `rel` (not `rel` itself) that no write or listing
   * stamped since `since` (store.begin()): after a walk of `rel`, what it did not find any more.
   * Returns false while rows remain.
   */
  deleteUnseen(rootId: number, rel: string, since: number, chunk = 2000): boolean {
    const b = below(rel);
    const removed = this.db.transaction(() => {
      const ids = this.db
        .all<{ id: number }>(
          `SELECT id FROM idx_entries WHERE root_id = ? AND ${b.sql} AND name <> '' AND (checked_at IS NULL OR checked_at < ?) LIMIT ?`,
          [rootId, ...b.params, since, chunk],
        )
        .map((r) => r.id);
      this.removeIds(ids);
      return ids.length;
    });
    return removed < chunk;
  }

  deleteDoc(entryId: number): void {
    this.db.run('DELETE FROM idx_docs WHERE rowid = ?', [entryId]);
    this.db.run('DELETE FROM idx_doc_state WHERE id = ?', [entryId]);
    this.db.run('DELETE FROM idx_media WHERE id = ?', [entryId]);
  }

  /** Documents of the extracted kinds by kind and state (roots being dropped left out). */
  documentCounts(): { kind: string; status: string; n: number }[] {
    return this.db.all(
      `SELECT s.kind, s.status, count(*) AS n FROM idx_doc_state s JOIN idx_entries e ON e.id = s.id
      JOIN idx_roots r ON r.id = e.root_id AND r.state <> 'dropping' GROUP BY s.kind, s.status`,
    );
  }

  /** The latest documents whose text could not be indexed, newest first. */
  documentsNotIndexed(
    limit: number,
  ): { root: string; dir: string; name: string; kind: string; status: string; pages: number | null; at: number }[] {
    return this.db.all(
      `SELECT r.path AS root, e.dir, e.name, s.kind, s.status, s.pages, s.at FROM idx_doc_state s
      JOIN idx_entries e ON e.id = s.id JOIN idx_roots r ON r.id = e.root_id AND r.state <> 'dropping'
      WHERE s.status NOT IN ('indexed', 'empty') ORDER BY s.at DESC, s.id DESC LIMIT ?`,
      [limit],
    );
  }

  /**
   * Adds a change of the item at `rel` to its parent (direct figures) and every ancestor
   * (recursive totals), in one transaction.
   */
  propagate(rootId: number, rel: string, d: Delta, now: number): void {
    if (rel === '' || (d.size === 0 && d.entries === 0 && d.directSize === 0 && d.directEntries === 0)) return;
    this.db.transaction(() => {
      let [parent] = splitRel(rel);
      let first = true;
      for (;;) {
        const [dir, name] = splitRel(parent);
        this.db.run(
          `UPDATE idx_entries SET total_size = max(0, total_size + ?), total_entries = max(0, total_entries + ?), updated_at = ?
          ${first ? ', size = max(0, size + ?), entries = max(0, entries + ?)' : ''} WHERE root_id = ? AND dir = ? AND name = ?`,
          first
            ? [d.size, d.entries, now, d.directSize, d.directEntries, rootId, dir, name]
            : [d.size, d.entries, now, rootId, dir, name],
        );
        first = false;
        if (parent === '') break;
        parent = splitRel(parent)[0];
      }
    });
  }

  /**
   * A folder's subtree was counted again: its ancestors' figures are lower bounds while it is
   * incomplete, and final again once none of their subfolders is incomplete.
   */
  settleComplete(rootId: number, rel: string): void {
    if (rel === '') return;
    const [dir, name] = splitRel(rel);
    const row = this.db.get<{ complete: number | null }>(
      'SELECT complete FROM idx_entries WHERE root_id = ? AND dir = ? AND name = ? AND is_dir = 1',
      [rootId, dir, name],
    );
    const incomplete = row?.complete === 0;
    this.db.transaction(() => {
      let parent = dir;
      for (;;) {
        const [pd, pn] = splitRel(parent);
        const still = incomplete || this.hasIncompleteSubfolder(rootId, parent);
        this.db.run('UPDATE idx_entries SET complete = ? WHERE root_id = ? AND dir = ? AND name = ?', [
          still ? 0 : 1,
          rootId,
          pd,
          pn,
        ]);
        if (parent === '') break;
        parent = pd;
      }
    });
  }

  /** A direct subfolder of `rel` could not be read whole. */
  hasIncompleteSubfolder(rootId: number, rel: string): boolean {
    // The first one answers: a folder of many entries is not counted through.
    return (
      this.db.get(
        "SELECT 1 FROM idx_entries WHERE root_id = ? AND dir = ? AND name <> '' AND is_dir = 1 AND complete = 0 LIMIT 1",
        [rootId, rel],
      ) !== undefined
    );
  }

  /** Records that a folder was just listed. */
  markChecked(rootId: number, rel: string, mtime: number, now: number): void {
    const [dir, name] = splitRel(rel);
    this.db.run('UPDATE idx_entries SET mtime = ?, checked_at = ? WHERE root_id = ? AND dir = ? AND name = ?', [
      mtime,
      this.stamp(now),
      rootId,
      dir,
      name,
    ]);
  }

  /** Folders due for the paced sweep: incomplete ones first, then the longest unchecked. */
  dueFolders(limit: number, olderThan: number): EntryRow[] {
    return this.db.all<EntryRow>(
      `SELECT e.id, e.root_id, e.dir, e.name, e.is_dir, e.size, e.mtime, e.entries, e.total_size, e.total_entries, e.complete, e.checked_at, e.updated_at
      FROM idx_entries e JOIN idx_roots r ON r.id = e.root_id AND r.state = 'ready'
      WHERE e.is_dir = 1 AND e.checked_at < ? ORDER BY e.complete ASC, e.checked_at ASC LIMIT ?`,
      [olderThan, limit],
    );
  }

  relOf(row: Pick<EntryRow, 'dir' | 'name'>): string {
    return row.name === '' ? '' : joinRel(row.dir, row.name);
  }
}
