// The extractor thread: reads one document at a time for the content index (documents.ts) and
// answers with its text and state. Its owner (extract-pool.ts) stops it when a document takes
// too long or too much memory, and starts a fresh one for the next; nothing here is trusted to
// end by itself. Its console is not the server's log (the owner discards its output).
import { parentPort } from 'node:worker_threads';
import { readDocument } from './documents.ts';
import type { ExtractRequest, ExtractReply } from './extract-pool.ts';

const port = parentPort!;
port.on('message', (m: ExtractRequest) => {
  readDocument(m.file, m.name, m.size, m.limits)
    .catch((): ExtractReply['result'] => ({ text: null }))
    .then((result) => port.postMessage({ id: m.id, result } satisfies ExtractReply));
});
