// WebDAV throughput with a real client: rclone copying a folder of 1,000 small files and one
// large file up to /dav/ and back down, against the ceiling of rclone copying the same folder
// to a local folder, in the same run (same disk, same rclone, same --transfers). The server is
// the executable (the source: BURROW_TEST_SERVER=source), signed in with Basic as a real account.
//
// Measured here (2 shared cores, one disk, rclone --transfers 4): one 1 GiB file up 1.10x and
// down 0.97x the local copy's time (62 / 73 MiB/s); 1,000 files of 4 KiB up 23x (37 ms a file)
// and down 16x (13 ms a file). Small files pay per request what a local copy does not: a
// PROPFIND and a PUT each, the checked open of the parent, an fsync of every file before it is
// placed (flush: true: a crash leaves old or new content), the version check, the changes sink.
//
//   npm run bench -- webdav [--quick] [largeMiB=512] [smallFiles=1000] [smallKiB=4]
import './executable.ts';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setupAdmin, ADMIN } from '../support/auth.ts';
import { removeDirs, startServer } from '../support/server.ts';
import { costRow, runAlone, type BenchOptions, type BenchRow } from './support/table.ts';

const TRANSFERS = '4';

export async function rows(opts: BenchOptions = {}): Promise<BenchRow[]> {
  const args = import.meta.main ? process.argv.slice(2).filter((a) => !a.startsWith('--')) : [];
  const largeMiB = Number(args[0] ?? (opts.quick ? 128 : 512));
  const smallFiles = Number(args[1] ?? (opts.quick ? 300 : 1000));
  const smallKiB = Number(args[2] ?? 4);
  const s = await startServer({ env: { LOG_LEVEL: 'error' } });
  try {
    await setupAdmin(s);
    const work = path.join(s.dirs.root, 'bench');
    const small = path.join(work, 'src', 'small');
    fs.mkdirSync(small, { recursive: true });
    for (let i = 0; i < smallFiles; i++)
      fs.writeFileSync(path.join(small, `f${i}.txt`), Buffer.alloc(smallKiB * 1024, i % 251));
    const largeDir = path.join(work, 'src', 'large');
    fs.mkdirSync(largeDir);
    {
      const fd = fs.openSync(path.join(largeDir, 'big.bin'), 'w');
      const block = Buffer.alloc(8 * 1024 * 1024);
      for (let i = 0; i < block.length; i += 4) block.writeUInt32LE((i * 2654435761) >>> 0, i);
      for (let left = largeMiB; left > 0; left -= 8)
        fs.writeSync(fd, left >= 8 ? block : block.subarray(0, left * 1024 * 1024));
      fs.closeSync(fd);
    }

    const obscured = spawnSync('rclone', ['obscure', ADMIN.password], { encoding: 'utf8' }).stdout.trim();
    const env = {
      ...process.env,
      HOME: work,
      RCLONE_CONFIG: path.join(work, 'rclone.conf'),
      RCLONE_CONFIG_B_TYPE: 'webdav',
      RCLONE_CONFIG_B_URL: `${s.url}/dav/`,
      RCLONE_CONFIG_B_VENDOR: 'other',
      RCLONE_CONFIG_B_USER: ADMIN.username,
      RCLONE_CONFIG_B_PASS: obscured,
    };
    // Asynchronous: the server runs in this process and must keep answering while rclone works.
    const run = (args: string[]) =>
      new Promise<{ code: number | null; err: string }>((resolve, reject) => {
        const child = spawn('rclone', args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        child.stderr.on('data', (d) => {
          err += d;
        });
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, err }));
      });
    const rclone = async (...args: string[]): Promise<number> => {
      const t = performance.now();
      // --ignore-checksum: local to local, rclone would hash both sides (WebDAV offers no hash),
      // so the local copy did more work than the WebDAV one and stopped being a ceiling.
      const r = await run([...args, '--transfers', TRANSFERS, '--checkers', '8', '--ignore-checksum']);
      if (r.code !== 0) throw new Error(`rclone ${args.join(' ')} failed:\n${r.err}`);
      return (performance.now() - t) / 1000;
    };
    const drop = () => spawnSync('sync');

    const rows: { what: string; local: number; dav: number; bytes: number }[] = [];
    for (const [what, dir, bytes] of [
      [`${smallFiles} files of ${smallKiB} KiB`, 'small', smallFiles * smallKiB * 1024],
      [`one ${largeMiB} MiB file`, 'large', largeMiB * 1024 * 1024],
    ] as const) {
      drop();
      const localUp = await rclone('copy', path.join(work, 'src', dir), path.join(work, 'local', dir));
      drop();
      const davUp = await rclone('copy', path.join(work, 'src', dir), `B:Files/bench/${dir}`);
      drop();
      const localDown = await rclone('copy', path.join(work, 'local', dir), path.join(work, 'local-back', dir));
      drop();
      const davDown = await rclone('copy', `B:Files/bench/${dir}`, path.join(work, 'dav-back', dir));
      const check = await run(['check', path.join(work, 'src', dir), path.join(work, 'dav-back', dir)]);
      if (check.code !== 0) throw new Error(`what came back differs:\n${check.err}`);
      rows.push(
        { what: `${what}, up`, local: localUp, dav: davUp, bytes },
        { what: `${what}, down`, local: localDown, dav: davDown, bytes },
      );
    }

    console.log(`rclone --transfers ${TRANSFERS}: WebDAV (${s.url}/dav/, Basic) vs a local folder, same run`);
    for (const r of rows) {
      const rate = (sec: number) => `${(r.bytes / 1024 / 1024 / sec).toFixed(1)} MiB/s`;
      console.log(
        `${r.what.padEnd(34)} local ${r.local.toFixed(2).padStart(7)} s (${rate(r.local)})   webdav ${r.dav.toFixed(2).padStart(7)} s (${rate(r.dav)})   webdav/local time ${(r.dav / r.local).toFixed(2)}x`,
      );
    }
    return rows.map((r) =>
      costRow(
        `WebDAV (rclone) ${r.what}`,
        r.dav,
        r.local,
        's',
        r.what.includes('files of') ? 'reference' : '≥ 0.8',
        `rclone --transfers ${TRANSFERS} to a local folder`,
      ),
    );
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
}

await runAlone(import.meta.main, rows);
