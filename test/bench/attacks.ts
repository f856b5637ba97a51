// Memory under the attack round's inputs (issue 33, item 3: "never above 400 MB during the attack
// round's inputs (zip bombs, 1,800 slow sockets, 2,000-level trees)"), through the executable:
// the peak resident memory while each input is thrown at it, sampled every 100 ms from
// /proc/<pid>/status, against the goal. Printed, not asserted.
//
//   npm run bench -- attacks [--quick]
//
// - Zip bombs: five at once of each — a zip whose one entry is 320 MiB of zeros (~320 KB, 1,000
//   times), a zip of ten 64 MiB entries of zeros, a zip of 200,000 empty entries (the most an
//   archive may hold, ARCHIVE_MAX_ENTRIES): each listed and extracted (the 200,000 once), and
//   the zeros entry read out whole (GET /api/archive/entry, 320 MiB inflated on the way).
// - 1,800 slow sockets: 900 requests whose headers come a line every 2 s, and 900 uploads that
//   declare 1 GiB and send a byte every 2 s, held open for 20 s (--quick: 10 s); then dropped.
// - A 2,000-level tree (`a/a/…/a`, a file at its bottom): the first walk of it, then five
//   at once of its folder size, a search for the bottom file, a zip of the whole chain, the
//   impact of deleting it and a WebDAV PROPFIND of it with Depth: infinity.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { bareEnv, ensureBinary, sandbox } from '../binary/harness.ts';
import { yazlZip } from '../support/archives.ts';
import { freePort, launch, rssMb } from './startup.ts';
import { costRow, runAlone, type BenchOptions, type BenchRow } from './support/table.ts';

const GOAL_MB = 400;
const MiB = 1024 * 1024;
const DEPTH = 2000;
const SLOW = 1800;

/** The peak RSS of `pid` while `work` runs (sampled every 100 ms), and what the work answered. */
async function peakDuring<T>(pid: number, work: () => Promise<T>): Promise<{ peakMb: number; result: T }> {
  let peak = rssMb(pid);
  const probe = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 100);
  try {
    const result = await work();
    return { peakMb: Math.round(Math.max(peak, rssMb(pid)) * 10) / 10, result };
  } finally {
    clearInterval(probe);
  }
}

/** Reads an answer to its end; its status (and an event stream's last event: `200 done`, `200 error ARCHIVE_BOMB`). */
async function drained(res: Response): Promise<string> {
  const body = Buffer.from(await res.arrayBuffer());
  if (!res.headers.get('content-type')?.startsWith('application/x-ndjson')) return String(res.status);
  const last = JSON.parse(body.toString('utf8').trim().split('\n').pop() ?? '{}') as { type?: string; code?: string };
  return [res.status, last.type, last.code].filter(Boolean).join(' ');
}

const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** The tree `a/a/…/a` DEPTH levels deep under `root`, made a level at a time (its path is past what one call takes). */
function deepTree(root: string): void {
  const back = process.cwd();
  try {
    process.chdir(root);
    for (let i = 0; i < DEPTH; i++) {
      fs.mkdirSync('a');
      process.chdir('a');
    }
    fs.writeFileSync('Tiefste Datei.txt', 'ganz unten\n');
  } finally {
    process.chdir(back);
  }
}

/** Opens `SLOW` sockets that trickle; resolves with how many the server still held after `holdMs`. */
async function slowSockets(port: number, holdMs: number): Promise<{ open: number; closedEarly: number }> {
  const sockets: net.Socket[] = [];
  let closedEarly = 0;
  const timers: NodeJS.Timeout[] = [];
  for (let i = 0; i < SLOW; i++) {
    const s = net.connect(port, '127.0.0.1');
    s.on('error', () => {});
    s.on('close', () => closedEarly++);
    sockets.push(s);
    await new Promise<void>((resolve) => {
      s.once('connect', resolve);
      s.once('error', () => resolve());
    });
    if (i % 2 === 0) {
      // Headers a line at a time.
      s.write(`GET /api/browse/Files HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
      let n = 0;
      timers.push(setInterval(() => s.write(`X-Slow-${n++}: ${'x'.repeat(20)}\r\n`), 2000));
    } else {
      // An upload that declares 1 GiB and sends a byte at a time.
      const boundary = 'slowloris-boundary';
      s.write(
        `POST /api/upload HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${1024 * MiB}\r\n\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="uploadTo"\r\n\r\nFiles\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="filedata"; filename="Langsam ${i} – Upload.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      );
      timers.push(setInterval(() => s.write('x'), 2000));
    }
  }
  await new Promise((r) => setTimeout(r, holdMs));
  for (const t of timers) clearInterval(t);
  const open = sockets.filter((s) => !s.destroyed).length;
  for (const s of sockets) s.destroy();
  return { open, closedEarly };
}

export async function rows(opts: BenchOptions = {}): Promise<BenchRow[]> {
  ensureBinary();
  const box = sandbox();
  try {
    const files = path.join(box.volumeRoot, 'Files');
    const bombs = path.join(files, 'Sicherungen 2024');
    fs.mkdirSync(bombs, { recursive: true });
    await yazlZip(path.join(bombs, 'Backup 2024 (zeros).zip'), [
      { name: 'disk image.img', data: Buffer.alloc(320 * MiB) },
    ]);
    const zero64 = Buffer.alloc(64 * MiB);
    await yazlZip(
      path.join(bombs, 'Zehn Bilder & mehr.zip'),
      Array.from({ length: 10 }, (_, i) => ({ name: `Bild ${i + 1}.img`, data: zero64 })),
    );
    // Python's zipfile writes the 200,000 entries in seconds (yazl takes minutes: it slows as they grow).
    execFileSync('python3', [
      '-c',
      "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n  for i in range(200000): z.writestr(f'Ordner {i % 100}/Datei #{i}.txt', '')",
      path.join(bombs, 'Viele kleine Dateien.zip'),
    ]);
    for (let i = 0; i < 5; i++) fs.mkdirSync(path.join(files, `Ausgepackt ${i}`));
    deepTree(files);

    const port = await freePort();
    const env = bareEnv(box, { PORT: String(port), HTTPS_PORT: 'off', LOG_LEVEL: 'warn', AUTH_MODE: 'disabled' });
    const t0 = performance.now();
    const server = await launch(box.binary, [], box.dir, env, port, '/readyz', 120_000);
    const pid = server.child.pid!;
    const base = server.base;
    try {
      // From ready (the first walk starts after it) until the walk reached the bottom: the
      // search finds the file there.
      const walked = await peakDuring(pid, async () => {
        for (;;) {
          const r = await fetch(`${base}/api/search?q=${encodeURIComponent('Tiefste Datei')}&path=Files`);
          const text = await r.text();
          if (text.includes('Tiefste Datei.txt')) return performance.now() - t0;
          if (performance.now() - t0 > 300_000)
            throw new Error(`the first walk did not reach the bottom: ${text.slice(0, 200)}`);
          await new Promise((r) => setTimeout(r, 200));
        }
      });

      const zip = (name: string) => `Files/Sicherungen 2024/${name}`;
      const bombRound = await peakDuring(pid, () =>
        Promise.all(
          ['Backup 2024 (zeros).zip', 'Zehn Bilder & mehr.zip', 'Viele kleine Dateien.zip'].flatMap((name) =>
            Array.from({ length: 5 }, async (_, i) => {
              const listed = await drained(
                await fetch(`${base}/api/archive/list?path=${encodeURIComponent(zip(name))}`),
              );
              // The 200,000 entries are extracted once (a million empty files is the disk's test).
              const extracted =
                name === 'Viele kleine Dateien.zip' && i > 0
                  ? '–'
                  : await drained(
                      await fetch(
                        `${base}/api/archive/extract`,
                        json({ path: zip(name), entries: [], destination: `Files/Ausgepackt ${i}` }),
                      ),
                    );
              const entry =
                name === 'Backup 2024 (zeros).zip'
                  ? await drained(
                      await fetch(
                        `${base}/api/archive/entry?path=${encodeURIComponent(zip(name))}&entry=${encodeURIComponent('disk image.img')}`,
                      ),
                    )
                  : '–';
              return `${listed}/${extracted}/${entry}`;
            }),
          ),
        ),
      );

      const holdMs = opts.quick ? 10_000 : 20_000;
      const slow = await peakDuring(pid, () => slowSockets(port, holdMs));

      const top = { path: 'Files', name: 'a' };
      const deepRound = await peakDuring(pid, () =>
        Promise.all(
          Array.from({ length: 5 }, async () => [
            await drained(await fetch(`${base}/api/folder-size/Files/a`)),
            await drained(await fetch(`${base}/api/search?q=${encodeURIComponent('Tiefste Datei')}&path=Files`)),
            await drained(await fetch(`${base}/api/download`, json({ path: 'Files/a' }))),
            await drained(await fetch(`${base}/api/files/delete-impact`, json({ items: [top] }))),
            await drained(await fetch(`${base}/dav/Files/a/`, { method: 'PROPFIND', headers: { Depth: 'infinity' } })),
          ]),
        ),
      );

      const statuses = (xs: unknown[]) => [...new Set(xs.flat().map(String))].join(', ');
      const row = (what: string, peak: number, note: string) =>
        costRow(
          `peak memory during ${what} (RSS)`,
          peak,
          GOAL_MB,
          'MB',
          `≤ ${GOAL_MB} MB`,
          `ceiling: the goal; ${note}`,
        );
      return [
        row(
          `the first walk of a ${DEPTH.toLocaleString('en')}-level tree`,
          walked.peakMb,
          `from ready until search finds the file at the bottom (${(walked.result / 1000).toFixed(1)} s)`,
        ),
        row(
          'zip bombs',
          bombRound.peakMb,
          `five at once of each of: 320 MiB of zeros in ~320 KB, ten 64 MiB entries of zeros, 200,000 entries — each listed and extracted (the 200,000 once), the zeros read out whole through /api/archive/entry; answers (list/extract/entry) ${statuses(bombRound.result)}`,
        ),
        row(
          `${SLOW.toLocaleString('en')} slow sockets`,
          slow.peakMb,
          `half send headers a line every 2 s, half upload a byte every 2 s of a declared 1 GiB, for ${holdMs / 1000} s; ${slow.result.open} still open at the end`,
        ),
        row(
          `requests on a ${DEPTH.toLocaleString('en')}-level tree`,
          deepRound.peakMb,
          `five at once of: its folder size, a search for the file at the bottom, a zip of the whole chain, the impact of deleting it, a WebDAV PROPFIND Depth: infinity; answers ${statuses(deepRound.result)}`,
        ),
      ];
    } finally {
      await server.stop();
    }
  } finally {
    // The deep tree is past what one rm call's paths take in some tools; Node's rmSync walks it.
    box.remove();
  }
}

await runAlone(import.meta.main, rows);
