// Listings kept by archive identity (real path, device, inode, size, mtime): a changed archive
// is a new key, so nothing stale is ever answered. Bounded by the entries held (least recently
// used first out), and one read per key at a time: ten requests for the same big archive wait
// for one listing instead of reading it ten times.

export interface ArchiveIdentity {
  real: string;
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
}

export const identityKey = (id: ArchiveIdentity) => `${id.real}\0${id.dev}\0${id.ino}\0${id.size}\0${id.mtimeMs}`;

export class ListingCache<Listing extends { readonly weight: number }> {
  private readonly held = new Map<string, Listing>();
  private readonly reading = new Map<string, Promise<Listing>>();
  private weight = 0;

  private readonly maxWeight: number;

  /** @param maxWeight entries (records + folders) held across all cached listings */
  constructor(maxWeight: number) {
    this.maxWeight = maxWeight;
  }

  async get(key: string, read: () => Promise<Listing>): Promise<Listing> {
    const hit = this.held.get(key);
    if (hit) {
      this.held.delete(key);
      this.held.set(key, hit);
      return hit;
    }
    let pending = this.reading.get(key);
    if (!pending) {
      pending = read()
        .then((listing) => {
          this.put(key, listing);
          return listing;
        })
        .finally(() => this.reading.delete(key));
      this.reading.set(key, pending);
    }
    return pending;
  }

  /** Is the listing of `key` held (a read of it may be cheaper than a walk without it)? */
  has(key: string): boolean {
    return this.held.has(key);
  }

  private put(key: string, listing: Listing): void {
    // A listing larger than the whole bound is answered but not kept.
    if (listing.weight > this.maxWeight) return;
    this.held.set(key, listing);
    this.weight += listing.weight;
    for (const [k, l] of this.held) {
      if (this.weight <= this.maxWeight) break;
      this.held.delete(k);
      this.weight -= l.weight;
    }
  }

  get size(): number {
    return this.held.size;
  }
}
