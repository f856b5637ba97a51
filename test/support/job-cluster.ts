// Three Burrow processes on one PostgreSQL sharing one volume folder, for the tests of the work
// the instances share out under leases (cluster-jobs, cluster-duties): each instance's id and
// jobs as GET /api/admin/jobs tells them, a way to kill one, and the database to look into.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { kill, startChild } from './child.ts';
import { Client } from './client.ts';
import { testPostgres } from './postgres.ts';
import { makeDirs, removeDirs, serverEnv, type TestDirs } from './server.ts';

export interface Instance {
  child: Awaited<ReturnType<typeof startChild>>['child'];
  url: string;
  dirs: TestDirs;
  id: string;
  dead: boolean;
}

/** One job as an instance reports it (GET /api/admin/jobs). */
export interface JobState {
  name: string;
  holder: string | null;
  runsHere: number;
  doneHere: number;
}

export interface JobCluster {
  /** The folders every instance shares (its `volumes` hold the volume `Files`). */
  shared: TestDirs;
  sql: pg.Client;
  /** Every instance started, the killed ones too (`dead`). */
  instances: Instance[];
  /** One more instance on the same database and volumes. */
  boot(): Promise<Instance>;
  jobOn(i: Instance, name: string): Promise<JobState>;
  alive(): Instance[];
  /** Kills `i` (SIGKILL): what it held stays held until its lease lapses. */
  kill(i: Instance): Promise<void>;
  close(): Promise<void>;
}

/**
 * Three instances (one first, so that one creates the schema, then two together) with `env`
 * beside a fresh database and cluster key; `folder` is made in the shared volume `Files`.
 */
export async function startJobCluster(
  prefix: string,
  folder: string,
  env: Record<string, string>,
): Promise<JobCluster> {
  const database = await (await testPostgres()).database();
  const sql = new pg.Client({ connectionString: database });
  await sql.connect();
  const shared = makeDirs(`${prefix}-`);
  fs.mkdirSync(path.join(shared.volumes, 'Files', folder), { recursive: true });
  const all = { ...env, DATABASE_URL: database, CLUSTER_KEY: crypto.randomBytes(32).toString('base64url') };
  const instances: Instance[] = [];
  const boot = async (): Promise<Instance> => {
    const dirs = makeDirs(`${prefix}-node-`);
    dirs.volumes = shared.volumes;
    const { child, url } = await startChild({ ...serverEnv(dirs), ...all });
    const me = await new Client(url).get('/api/admin/jobs');
    assert.is(me.status, 200, me.text);
    const instance = { child, url, dirs, id: me.json.instance as string, dead: false };
    instances.push(instance);
    return instance;
  };
  await boot();
  await Promise.all([boot(), boot()]);
  return {
    shared,
    sql,
    instances,
    boot,
    async jobOn(i, name) {
      const r = await new Client(i.url).get('/api/admin/jobs');
      assert.is(r.status, 200, r.text);
      const job = (r.json.jobs as JobState[]).find((j) => j.name === name);
      return job ?? { name, holder: null, runsHere: 0, doneHere: 0 };
    },
    alive: () => instances.filter((i) => !i.dead),
    async kill(i) {
      await kill(i.child);
      i.dead = true;
    },
    async close() {
      for (const i of instances) if (!i.dead) await kill(i.child).catch(() => {});
      await sql.end();
      for (const i of instances) removeDirs(i.dirs);
      removeDirs(shared);
    },
  };
}
