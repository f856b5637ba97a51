// One cache for what nearly every request reads and almost nothing writes: the settings'
// sections (settings/service.ts) and the access model's snapshot (access/service.ts).
//
// Embedded database: this process is the only writer, so an entry holds until this process
// changes what it was read from (`drop`).
//
// PostgreSQL (a cluster): every statement that changes a settings or access-model row moves one
// version row up and NOTIFYs the change stream's channel, in the writer's own transaction
// (cluster/004_config_version.pg.sql). The consistency rule:
// - A request trusts this instance's entries only once a read of the version row made after the
//   request reached this process (by it, or by any work since) found the version its entries
//   were loaded at — one primary-key statement per request at most, and none when another read
//   since its arrival answers for it. The writer's response is sent after its commit, so any
//   request that reaches any instance after that response is answered from the new version: a
//   rule or setting changed through one instance holds on the very next request through
//   another, whatever the load — no wait, no window.
// - Work outside a request (the notification sender, jobs) and what a request leaves running
//   after it (the live socket's messages, a timer it set) trust the entries while the change
//   stream listens: the database's NOTIFY drops them within its round trip of the commit. While
//   the stream is not listening (starting, PostgreSQL lost) such work reads the version row too.
// Why the version row and not the NOTIFY alone: the writer can wait until its own NOTIFY comes
// back through LISTEN, which proves the others' backends have it queued, not that the other
// instances' processes have read it — on a machine at load 20 another instance's PostgreSQL
// backend may wait longer for a core than the client's next request takes to arrive there; and
// a NOTIFY sent while an instance's stream reconnects is never heard there. The version row
// costs at most one statement per request that reads the configuration (the README's
// PostgreSQL bench rows) and replaces the statement per settings read that settings cost
// before, and the access snapshot's reload every second.
import type { Database } from '../db/database.ts';
import { arrivals, requestContext } from '../core/log.ts';
import { createConfigVersionStore } from './config-version-store.ts';

export interface ConfigCache {
  /** The value under `key`, loaded by `load` unless this instance holds a current one. */
  read<T>(key: string, load: () => T, opts?: { maxAgeMs?: number }): T;
  /** This instance changed what the entries were read from: every entry is read again. */
  drop(): void;
}

/** What the cache needs of the change stream (cluster/stream.ts). */
export interface ConfigSignals {
  listening(): boolean;
  on(topic: string, heard: (payload: unknown) => void, lost?: () => void): () => void;
}

export const CONFIG_TOPIC = 'config';

export function createConfigCache(db: Database): ConfigCache & { listen(stream: ConfigSignals): () => void } {
  const entries = new Map<string, { value: unknown; at: number }>();
  if (db.dialect === 'sqlite') {
    return {
      read<T>(key: string, load: () => T, opts?: { maxAgeMs?: number }): T {
        const e = entries.get(key);
        const now = Date.now();
        if (e && (opts?.maxAgeMs === undefined || now - e.at <= opts.maxAgeMs)) return e.value as T;
        const value = load();
        entries.set(key, { value, at: now });
        return value;
      },
      drop: () => entries.clear(),
      listen: () => () => {},
    };
  }

  const versions = createConfigVersionStore(db);
  let stream: ConfigSignals | null = null;
  /** The version the entries were loaded at (null: not known, read it before trusting them). */
  let loadedAt: number | null = null;
  /** The version row as last read, and how many requests had reached this process by then. */
  let seen: { version: number; arrivals: number } | null = null;

  const readVersion = (): number => {
    seen = { version: versions.version('config'), arrivals: arrivals() };
    return seen.version;
  };

  /** Makes the entries current for the caller (see the rule above). */
  function settle(): void {
    const arrival = requestContext.getStore()?.arrival;
    let v: number;
    if (arrival === undefined) {
      // Outside a request: the stream keeps the entries while it listens.
      if (loadedAt !== null && stream?.listening()) return;
      v = readVersion();
    } else if (seen !== null && seen.arrivals >= arrival) {
      // A read made after this request arrived answers for it (and for what it left running).
      v = seen.version;
    } else v = readVersion();
    if (v !== loadedAt) {
      entries.clear();
      loadedAt = v;
    }
  }

  const drop = () => {
    entries.clear();
    loadedAt = null;
  };

  return {
    read<T>(key: string, load: () => T): T {
      settle();
      const e = entries.get(key);
      if (e) return e.value as T;
      const value = load();
      // Read after the version: an entry is never older than the version it is kept under.
      if (loadedAt !== null) entries.set(key, { value, at: Date.now() });
      return value;
    },
    drop,
    listen(s) {
      stream = s;
      const off = s.on(CONFIG_TOPIC, drop, drop);
      return () => {
        off();
        stream = null;
        drop();
      };
    },
  };
}
