// Quota holds live in the server process only: killed (SIGKILL) while a resumable upload holds
// its length and a WebDAV PUT holds what it streamed so far, the restarted server holds
// nothing, leaves no temporary of the PUT, and the resumable upload takes its hold again at its
// next PATCH (refused when the quota no longer has room for it).
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '../support/client.ts';
import { kill, startChild } from '../support/child.ts';
import { makeDirs, removeDirs, serverEnv } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const TUS = { 'Tus-Resumable': '1.0.0' };
const b64 = (v: string) => Buffer.from(v).toString('base64');
const VOLUME = 'Büro & Archiv';

const volumeQuota = async (c: Client) =>
  (await c.get('/api/admin/quotas')).json.volumes.find((v: any) => v.volume === VOLUME);

test('a SIGKILL while uploads hold their bytes leaves no hold and no temporary after the restart', async () => {
  const dirs = makeDirs('burrow-quota-crash-');
  fs.mkdirSync(path.join(dirs.volumes, VOLUME));
  const env = {
    ...serverEnv(dirs),
    AUTH_MODE: 'disabled',
    LOG_LEVEL: 'info',
    FOLDER_SIZE_MODE: 'full',
    FOLDER_SIZE_FLUSH_MS: '20',
    UPLOAD_CHUNKED_ENABLED: 'true',
  };
  let server: Awaited<ReturnType<typeof startChild>> | undefined;
  try {
    server = await startChild(env);
    let c = new Client(server.url);
    assert.is(
      (await c.put(`/api/admin/quotas/volumes/${encodeURIComponent(VOLUME)}`, { limitBytes: 1_000_000 })).status,
      200,
    );
    await waitFor(() => volumeQuota(c), { what: 'the volume measured', until: (v) => v?.storedBytes === 0 });
    const created = await c.request('POST', '/api/upload/tus', undefined, {
      ...TUS,
      'Upload-Length': '600000',
      'Upload-Metadata': `filename ${b64('Jahresabschluss 2025 (final).pdf')},uploadTo ${b64(VOLUME)}`,
    });
    assert.is(created.status, 201, created.text);
    const url = created.headers.get('location')!;
    // A WebDAV PUT without a length, its first chunk sent, the rest never coming.
    let more!: () => void;
    const never = new Promise<void>((resolve) => (more = resolve));
    let sent = false;
    const body = new ReadableStream({
      async pull(ctl) {
        if (!sent) {
          sent = true;
          ctl.enqueue(Buffer.alloc(64 * 1024, 9));
          return;
        }
        await never;
        ctl.close();
      },
    });
    const put = fetch(
      `${server.url}/dav/${encodeURIComponent(VOLUME)}/${encodeURIComponent('Scan #4 – Rechnung.tiff')}`,
      {
        method: 'PUT',
        body,
        duplex: 'half',
      } as RequestInit,
    ).catch((err: Error) => err);
    await waitFor(() => volumeQuota(c), {
      what: 'the upload and the PUT holding their bytes',
      until: (v) => v.reservedBytes === 600_000 + 64 * 1024,
    });
    await kill(server.child);
    more();
    await put;

    server = await startChild(env);
    c = new Client(server.url);
    const after = await waitFor(() => volumeQuota(c), { what: 'the volume measured again', until: (v) => v?.measured });
    assert.is(after.reservedBytes, 0);
    assert.is(after.usedBytes, 0);
    const left = fs.readdirSync(path.join(dirs.volumes, VOLUME));
    assert.equal(left, [], 'no temporary of the PUT');
    // Another upload takes the room meanwhile; the old one's next PATCH holds its length again and is refused.
    const other = await c.request('POST', '/api/upload/tus', undefined, {
      ...TUS,
      'Upload-Length': '500000',
      'Upload-Metadata': `filename ${b64('Belege Q4.zip')},uploadTo ${b64(VOLUME)}`,
    });
    assert.is(other.status, 201, other.text);
    const resumed = await c.request('PATCH', url, Buffer.alloc(1000, 1), {
      ...TUS,
      'Upload-Offset': '0',
      'Content-Type': 'application/offset+octet-stream',
    });
    assert.is(resumed.status, 507, resumed.text);
    assert.is(resumed.json.error.code, 'QUOTA_EXCEEDED');
    assert.is((await volumeQuota(c)).reservedBytes, 500_000);
    // Once the other is cancelled, the old one resumes and is placed.
    assert.is((await c.request('DELETE', other.headers.get('location')!, undefined, TUS)).status, 204);
    const done = await c.request('PATCH', url, Buffer.alloc(600_000, 1), {
      ...TUS,
      'Upload-Offset': '0',
      'Content-Type': 'application/offset+octet-stream',
    });
    assert.is(done.status, 204, done.text);
    assert.equal(fs.readdirSync(path.join(dirs.volumes, VOLUME)), ['Jahresabschluss 2025 (final).pdf']);
  } finally {
    if (server) await kill(server.child);
    removeDirs(dirs);
  }
});

test.run();
