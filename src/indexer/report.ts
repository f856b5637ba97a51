// The index's state as the administrator sees it: the folders it covers and what became of the
// documents that need a reader (indexed, skipped and why). Rows alone, no file-system call.
import path from 'node:path';
import type { IndexStore } from './store.ts';
import type { IndexReport } from './wire.ts';
import type { DocStatus, ExtractedKind } from './extract.ts';

const LATEST = 100;

export function indexReport(store: IndexStore, enabled: boolean): IndexReport {
  return {
    enabled,
    roots: store.roots().map((r) => ({ path: r.path, state: r.state })),
    documents: store
      .documentCounts()
      .map((c) => ({ kind: c.kind as ExtractedKind, status: c.status as DocStatus, count: c.n }))
      .sort((a, b) => (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : a.status < b.status ? -1 : 1)),
    notIndexed: store.documentsNotIndexed(LATEST).map((d) => ({
      folder: d.dir === '' ? d.root : path.join(d.root, ...d.dir.split('/')),
      name: d.name,
      kind: d.kind as ExtractedKind,
      status: d.status as DocStatus,
      pages: d.pages,
      at: new Date(d.at).toISOString(),
    })),
  };
}
