// Messages between a listing and the stat worker (stat.worker.ts).

export interface StatJob {
  id: number;
  /** The folder, by path; the names are its entries. */
  dir: string;
  names: string[];
}

/** Per name, in order: kind 0 = gone or unreadable, 1 = not a folder, 2 = folder. */
export interface StatResult {
  id: number;
  sizes: Float64Array;
  mtimes: Float64Array;
  kinds: Uint8Array;
}
