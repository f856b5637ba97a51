// One archive's table of contents, read once and kept (cache.ts): the entries under safe
// paths, the folders they imply, and how many names were left out for pointing outside.
// Every answer (one folder level, one entry, a selection for extraction) comes from here, so
// paging through a 100,000-entry archive never reads it again.
import { badPosition, entryNotFound } from './errors.ts';
import { entryPath, formatModified, positionPath } from './entry-path.ts';

export type EntryKind = 'file' | 'directory' | 'link' | 'device';

/** An entry as a format reader saw it. */
export interface RawEntry {
  stored: string;
  kind: EntryKind;
  /** Declared size; null where the format does not say (a plain .gz). */
  size: number | null;
  mtime: Date | null;
  encrypted: boolean;
  linkTarget?: string;
  /** What the format needs to open this entry again (zip: offsets and method). */
  ref?: unknown;
}

export interface ArchiveRecord {
  readonly path: string;
  readonly kind: EntryKind;
  readonly size: number | null;
  readonly mtimeMs: number | null;
  readonly encrypted: boolean;
  readonly linkTarget?: string;
  readonly ref?: unknown;
}

/** An entry of a listing answer (spec §2 Archive listing). */
export interface ListedEntry {
  name: string;
  path: string;
  isDirectory: boolean;
  size: number | null;
  modified: string | null;
  encrypted?: boolean;
}

interface Folder {
  mtimeMs: number | null;
  /**
   * Child paths as they came, a name possibly more than once (a file met twice, or before a
   * folder of its name): made unique when the level is first sorted, not per entry.
   */
  children: string[];
}

// Made on first use: a collator loads ICU's collation data (~2 MB of the executable's pages,
// resident for the life of the process) that a server which never lists an archive does not need.
let collator: Intl.Collator | undefined;
const byName = (): Intl.Collator => (collator ??= new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' }));

export class Listing {
  private count = 0;
  private left = 0;
  private readonly kept: ArchiveRecord[] = [];
  private readonly folders = new Map<string, Folder>([['', { mtimeMs: null, children: [] }]]);
  // Entries come grouped by folder in most archives: the last parent is looked up once.
  private lastParent = '';
  private lastFolder: Folder = this.folders.get('')!;

  /** Built from `raw` at once, or entry by entry with `add` as a reader parses them. */
  constructor(raw: Iterable<RawEntry> = []) {
    for (const e of raw) this.add(e);
  }

  /** Every raw entry, including those left out. */
  get total(): number {
    return this.count;
  }

  get outside(): number {
    return this.left;
  }

  /** Safe entries in archive order (duplicates kept: both are extracted, the second as `name (1)`). */
  get records(): readonly ArchiveRecord[] {
    return this.kept;
  }

  /**
   * One entry more. Only what a folder level needs is kept up to date here (records, folders,
   * each folder's candidate children); the file index waits for its first use (`files`).
   */
  add(e: RawEntry): void {
    this.count++;
    const p = entryPath(e.stored);
    if (p === null) {
      // `./` alone (a tar's top) is not an entry pointing outside: it is nothing.
      if (e.kind !== 'directory' || !/^[./\\]*$/.test(e.stored)) this.left++;
      return;
    }
    const record: ArchiveRecord = {
      path: p,
      kind: e.kind,
      size: e.kind === 'directory' ? null : e.size,
      mtimeMs: e.mtime ? e.mtime.getTime() : null,
      encrypted: e.encrypted,
      linkTarget: e.linkTarget,
      ref: e.ref,
    };
    this.kept.push(record);
    if (this.byPath || this.sorted.size) {
      this.byPath = undefined;
      this.sorted.clear();
    }
    if (e.kind === 'directory') {
      this.folder(p).mtimeMs = record.mtimeMs;
      return;
    }
    const parent = parentOf(p);
    if (parent !== this.lastParent) {
      this.lastFolder = this.folder(parent);
      this.lastParent = parent;
    }
    this.lastFolder.children.push(p);
  }

  /** The folder at `p`, created (with its parents) when only implied by the paths below it. */
  private folder(p: string): Folder {
    let f = this.folders.get(p);
    if (f) return f;
    f = { mtimeMs: null, children: [] };
    this.folders.set(p, f);
    if (p !== '') this.folder(parentOf(p)).children.push(p);
    return f;
  }

  private byPath: Map<string, ArchiveRecord> | undefined;

  /**
   * Files by path: the first record of a name, unless a folder has that name (the folder wins
   * the listing; extraction numbers the file). Made on first use: listing a folder of folders
   * (the top of most big archives) never needs it, and a Map of 100,000 paths is a tenth of
   * the time a listing takes to read them.
   */
  private get files(): Map<string, ArchiveRecord> {
    if (!this.byPath) {
      const files = new Map<string, ArchiveRecord>();
      for (const r of this.kept)
        if (r.kind !== 'directory' && !this.folders.has(r.path) && !files.has(r.path)) files.set(r.path, r);
      this.byPath = files;
    }
    return this.byPath;
  }

  isFolder(p: string): boolean {
    return this.folders.has(p);
  }

  file(p: string): ArchiveRecord | undefined {
    return this.files.get(p);
  }

  /** One folder level, folders first, then by name (numbers in names in numeric order). */
  level(
    inside: string | undefined,
    page: { offset?: number; limit?: number } = {},
  ): { inside: string | null; entries: ListedEntry[]; count: number } {
    const position = positionPath(inside ?? '');
    if (position === 'bad') throw badPosition();
    const key = position ?? '';
    const folder = this.folders.get(key);
    if (!folder) throw entryNotFound(inside ?? '');
    const ordered = this.ordered(key, folder);
    const offset = Math.max(0, page.offset ?? 0);
    const slice = ordered.slice(offset, page.limit === undefined ? undefined : offset + Math.max(0, page.limit));
    return { inside: position, count: ordered.length, entries: slice.map((p) => this.entry(p)) };
  }

  private readonly sorted = new Map<string, string[]>();

  /** A folder's children in listing order, sorted once (paging a huge folder re-sorts nothing). */
  private ordered(key: string, folder: Folder): string[] {
    let ordered = this.sorted.get(key);
    if (!ordered) {
      const children = [...new Set(folder.children)];
      const names = new Map(children.map((c) => [c, baseOf(c)]));
      const compare = byName().compare;
      const cmp = (a: string, b: string) => compare(names.get(a)!, names.get(b)!);
      const dirs = children.filter((c) => this.folders.has(c)).sort(cmp);
      const files = children.filter((c) => !this.folders.has(c)).sort(cmp);
      ordered = dirs.concat(files);
      this.sorted.set(key, ordered);
    }
    return ordered;
  }

  entry(p: string): ListedEntry {
    const folder = this.folders.get(p);
    if (folder)
      return {
        name: baseOf(p),
        path: p,
        isDirectory: true,
        size: null,
        modified: formatModified(folder.mtimeMs === null ? null : new Date(folder.mtimeMs)),
      };
    const r = this.files.get(p);
    if (!r) throw entryNotFound(p);
    return {
      name: baseOf(p),
      path: p,
      isDirectory: false,
      size: r.size,
      modified: formatModified(r.mtimeMs === null ? null : new Date(r.mtimeMs)),
      encrypted: r.encrypted,
    };
  }

  /** The one file named exactly `name` (after the same normalisation as the listing). */
  lookupFile(name: string): ArchiveRecord {
    const p = positionPath(name);
    if (p === 'bad') throw badPosition();
    if (p === null) throw entryNotFound(name);
    const r = this.files.get(p);
    if (!r) throw entryNotFound(name);
    return r;
  }

  /**
   * The extraction roots for `names` (a folder stands for everything under it; an empty
   * list or the top means the whole archive), with roots inside other roots dropped.
   */
  selection(names: readonly string[]): Selection {
    const roots = new Set<string>();
    const all = names.length === 0 || names.some((n) => positionPath(n) === null);
    if (all) {
      for (const child of this.folders.get('')!.children) roots.add(child);
    } else {
      for (const n of names) {
        const p = positionPath(n);
        if (p === 'bad') throw badPosition();
        if (p === null) continue;
        if (!this.folders.has(p) && !this.files.has(p)) throw entryNotFound(n);
        roots.add(p);
      }
      for (const r of [...roots]) {
        for (let a = parentOf(r); a !== ''; a = parentOf(a))
          if (roots.has(a)) {
            roots.delete(r);
            break;
          }
      }
    }
    return new Selection(roots);
  }

  /** Sum of declared sizes of the selected files; null when one of them does not say. */
  declaredBytes(sel: Selection): { files: number; bytes: number | null } {
    let files = 0;
    let bytes: number | null = 0;
    for (const r of this.records) {
      if (r.kind !== 'file' || !sel.rootOf(r.path)) continue;
      files++;
      bytes = r.size === null || bytes === null ? null : bytes + r.size;
    }
    return { files, bytes };
  }

  /** A rough count of memory held, for the cache's bound. */
  get weight(): number {
    return this.records.length + this.folders.size;
  }
}

export class Selection {
  readonly roots: ReadonlySet<string>;
  private readonly all: boolean;

  constructor(roots: ReadonlySet<string>, all = false) {
    this.roots = roots;
    this.all = all;
  }

  /** Everything, for a walk without a listing: each top-level name is a root. */
  static everything(): Selection {
    return new Selection(new Set(), true);
  }

  /** The root that `p` falls under (itself or a folder above it), or undefined. */
  rootOf(p: string): string | undefined {
    if (this.all) return p.split('/')[0];
    for (let a = p; ; a = parentOf(a)) {
      if (this.roots.has(a)) return a;
      if (a === '') return undefined;
    }
  }
}

export function parentOf(p: string): string {
  const i = p.lastIndexOf('/');
  return i < 0 ? '' : p.slice(0, i);
}

export function baseOf(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}
