// The ceiling of "search a name over HTTP": a bare Node server that walked the same tree once
// and holds every name in memory (with its lower-cased key, made once), and per query scans all
// of them, ranking the matches by Burrow's own rules (src/search/term.ts: tier, then shorter
// names), answering the best `limit` as the same
// JSON over HTTP. No index, no database, no access checks, no time budget.
//   node test/bench/support/search-ceiling.ts <volume folder> <volume name>
// Prints {"port":N} once it listens.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { compareNames, keyOf, nameTier, parseTerm } from '../../../src/search/term.ts';

const [top, volume] = process.argv.slice(2) as [string, string];
const names: { dir: string; name: string; key: string; kind: 'dir' | 'file' }[] = [];
for (const e of fs.readdirSync(top, { withFileTypes: true, recursive: true })) {
  const dir = path.relative(top, e.parentPath);
  const kind = e.isDirectory() ? 'dir' : 'file';
  names.push({ dir: dir ? `${volume}/${dir}` : volume, name: e.name, key: keyOf(e.name), kind });
}

http
  .createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    const limit = Number(url.searchParams.get('limit') ?? 100);
    const term = parseTerm(url.searchParams.get('q') ?? '');
    const hits: { tier: number; name: string; at: number }[] = [];
    for (let i = 0; i < names.length; i++) {
      // Keys made once at load: a word is first looked for in them, ranked only where found.
      if (term.kind === 'word' && !names[i]!.key.includes(term.key)) continue;
      const tier = nameTier(term, names[i]!.name);
      if (tier >= 0) hits.push({ tier, name: names[i]!.name, at: i });
    }
    hits.sort(compareNames);
    const items = hits.slice(0, limit).map((h) => ({ name: h.name, path: names[h.at]!.dir, kind: names[h.at]!.kind }));
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ items, truncated: false, complete: hits.length <= limit }));
  })
  .listen(0, '127.0.0.1', function (this: http.Server) {
    console.log(JSON.stringify({ port: (this.address() as { port: number }).port }));
  });
