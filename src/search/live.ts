// Search where the index does not cover the path (indexing off, or a baseline walk still
// running): a bounded walk of the folder with the same matching rules, stopped by the time
// budget. Symbolic links are never followed; unreadable folders are skipped.
import fs from 'node:fs';
import path from 'node:path';
import { isReservedName } from '../files/names.ts';
import { decodeText, documentKind } from '../indexer/extract.ts';
import { matchLine, nameTier, compareNames, type Term } from './term.ts';

export interface LiveNameHit {
  real: string;
  name: string;
  isDir: boolean;
  tier: number;
}
export interface LiveDocHit {
  real: string;
  name: string;
  line: string;
  lineNumber: number;
}
export interface LiveFound {
  names: LiveNameHit[];
  docs: LiveDocHit[];
  truncated: boolean;
  capped: boolean;
}

const NAME_CAP = 5000;
const DOC_READS = 300;
const DOC_MAX_BYTES = 1024 * 1024;

/** Whether a real path may be searched (private folders, excluded paths): decided by the caller. */
export type Admit = (real: string) => boolean;

export async function searchLive(start: string, term: Term, deadline: number, admit: Admit): Promise<LiveFound> {
  const out: LiveFound = { names: [], docs: [], truncated: false, capped: false };
  const queue: string[] = [start];
  const docCandidates: { real: string; name: string }[] = [];
  while (queue.length) {
    if (Date.now() > deadline) {
      out.truncated = true;
      break;
    }
    const dir = queue.shift()!;
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const real = path.join(dir, e.name);
      if (isReservedName(e.name) || !admit(real)) continue;
      const isDir = e.isDirectory();
      if (isDir) queue.push(real);
      const tier = nameTier(term, e.name);
      if (tier >= 0) {
        if (out.names.length < NAME_CAP) out.names.push({ real, name: e.name, isDir, tier });
        else out.capped = true;
      } else if (
        !isDir &&
        e.isFile() &&
        term.kind === 'word' &&
        // Plain text only: documents that need a reader (PDF, office, …) are searched once indexed.
        documentKind(e.name) === 'text'
      ) {
        if (docCandidates.length < DOC_READS) docCandidates.push({ real, name: e.name });
        else out.capped = true;
      }
    }
  }
  for (const c of docCandidates) {
    if (Date.now() > deadline) {
      out.truncated = true;
      break;
    }
    try {
      const handle = await fs.promises.open(c.real, 'r');
      try {
        const buf = Buffer.alloc(DOC_MAX_BYTES);
        const { bytesRead } = await handle.read(buf, 0, DOC_MAX_BYTES, 0);
        const text = decodeText(buf.subarray(0, bytesRead));
        const hit = text ? matchLine(term, text) : null;
        if (hit) out.docs.push({ real: c.real, name: c.name, ...hit });
      } finally {
        await handle.close();
      }
    } catch {
      /* unreadable: skipped */
    }
  }
  out.names.sort(compareNames);
  return out;
}
