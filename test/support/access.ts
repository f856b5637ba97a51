// Each verb of the access model (see, download, write, delete, share) tried for real by one
// client on one folder, the disk checked after each: the shared half of the access suites
// (access-volumes, access-migration), which compare it with what the explainer says.
import fs from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import type { Client } from './client.ts';

export const VERBS = ['see', 'download', 'write', 'delete', 'share'] as const;
export type Can = Record<(typeof VERBS)[number], boolean>;

let counter = 0;
/** A number not used before in this run, for the names of the files a try makes. */
export const nextTry = () => ++counter;

const enc = (p: string) => p.split('/').map(encodeURIComponent).join('/');

/** What the request answered: done (2xx) or refused (403, 404); anything else fails the test. */
export function done(r: { status: number; text: string }, what: string): boolean {
  if (r.status >= 200 && r.status < 300) return true;
  // Not 401: a lost session or token would otherwise pass every "not at all" row.
  assert.ok([403, 404].includes(r.status), `${what}: ${r.status} ${r.text}`);
  return false;
}

/**
 * Each verb tried for real on `folder` (real: its place on disk), downloading its file `file`
 * and sharing `shared` (the folder itself or a file in it).
 */
export async function outcomes(
  c: Client,
  folder: string,
  real: string,
  { file, shared }: { file: string; shared: string },
): Promise<Can> {
  const n = nextTry();
  const see = done(await c.get(`/api/browse/${enc(folder)}`), `see ${folder}`);
  const download = done(await c.post('/api/download', { path: `${folder}/${file}` }), `download in ${folder}`);
  const made = `new #${n} é.txt`;
  const write = done(await c.post('/api/files/file', { path: folder, name: made, content: 'x' }), `write ${folder}`);
  assert.is(fs.existsSync(path.join(real, made)), write, 'the disk says what the answer said');
  if (write) fs.rmSync(path.join(real, made));
  const victim = `victim #${n}.txt`;
  fs.writeFileSync(path.join(real, victim), 'keep me');
  const gone = await c.delete('/api/files', { items: [{ path: folder, name: victim }] });
  // An item the caller cannot reach is skipped as missing (200): not deleted.
  const del = done(gone, `delete in ${folder}`) && gone.json.items[0].status === 'deleted';
  assert.is(fs.existsSync(path.join(real, victim)), !del, 'the disk says what the answer said');
  if (!del) fs.rmSync(path.join(real, victim));
  const share = done(await c.post('/api/shares', { sourcePath: shared, sharingType: 'anyone' }), `share in ${folder}`);
  return { see, download, write, delete: del, share };
}
