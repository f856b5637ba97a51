// What the quota rows answer: the caller's own figures and the administrator's overview and
// settings. The figures are the service's (service.ts); the limits are the store's.
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import type { Space } from '../files/paths.ts';
import type { Quotas } from './service.ts';
import type { QuotaStore } from './store.ts';

export interface QuotaAdminDeps {
  quotas: Quotas;
  store: QuotaStore;
  /** The spaces a caller sees (the volumes are those of kind `volume`). */
  spaces: (caller: Caller) => Promise<Space[]>;
  accounts: () => { id: string; username: string }[];
  /** The access model's groups. */
  groups: () => { id: string; name: string }[];
  /** Folder sizes run in full mode: the index can measure what is used. */
  measuring: () => boolean;
}

export function createQuotaAdmin(deps: QuotaAdminDeps) {
  const { quotas, store } = deps;
  const volumesOf = async (caller: Caller) => (await deps.spaces(caller)).filter((s) => s.kind === 'volume');
  const mustMeasure = (limit: number | null) => {
    if (limit !== null && !deps.measuring())
      throw new AppError(
        'FEATURE_OFF',
        'Quotas are measured by the folder-size index: set Folder sizes to "full" in Administration → Installation first.',
      );
  };
  const account = async (id: string, username: string) => ({
    userId: id,
    username,
    ...(await quotas.accountUsage(id, username)),
  });

  const groupDefaults = () =>
    deps.groups().map((g) => ({ groupId: g.id, name: g.name, defaultLimitBytes: store.group(g.id) }));

  return {
    async mine(caller: Caller) {
      const volumes = (await volumesOf(caller))
        .filter((v) => store.volume(v.name) !== null)
        .map((v) => ({ volume: v.name, ...quotas.volumeUsage(v.name, v.root) }));
      const own =
        quotas.limitOf(caller.userId).limitBytes === null
          ? null
          : await quotas.accountUsage(caller.userId, caller.username);
      return { account: own, volumes };
    },
    async overview(caller: Caller) {
      const accounts = [];
      for (const a of deps.accounts()) accounts.push(await account(a.id, a.username));
      const volumes = (await volumesOf(caller)).map((v) => ({ volume: v.name, ...quotas.volumeUsage(v.name, v.root) }));
      return { measuring: deps.measuring(), accounts, volumes, groups: groupDefaults() };
    },
    setGroup(id: string, limitBytes: number | null) {
      const g = deps.groups().find((x) => x.id === id);
      if (!g) throw new AppError('GROUP_NOT_FOUND');
      mustMeasure(limitBytes);
      store.setGroup(id, limitBytes);
      return groupDefaults().find((x) => x.groupId === id)!;
    },
    async setAccount(id: string, limitBytes: number | null) {
      const a = deps.accounts().find((x) => x.id === id);
      if (!a) throw new AppError('USER_NOT_FOUND');
      mustMeasure(limitBytes);
      store.setAccount(id, limitBytes);
      return account(a.id, a.username);
    },
    async setVolume(caller: Caller, name: string, limitBytes: number | null) {
      const v = (await volumesOf(caller)).find((x) => x.name.toLowerCase() === name.toLowerCase());
      if (!v) throw new AppError('NOT_FOUND', 'No such volume.');
      mustMeasure(limitBytes);
      store.setVolume(v.name, limitBytes);
      return { volume: v.name, ...quotas.volumeUsage(v.name, v.root) };
    },
  };
}

export type QuotaAdmin = ReturnType<typeof createQuotaAdmin>;
