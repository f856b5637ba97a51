// Wire shapes of quotas: an account's or a volume's figures, and the administrator's settings.
import { z } from 'zod';

export const usage = z.object({
  limitBytes: z.number().int().nullable().describe('The quota; null: none'),
  usedBytes: z.number().int().describe('All that counts against the quota: stored + trash + versions + in flight'),
  storedBytes: z
    .number()
    .int()
    .nullable()
    .describe(
      'What the personal folder (or the volume) holds, from the folder-size index; null when the index has no figure',
    ),
  trashBytes: z.number().int().describe('Deleted items of this account the trash keeps (they count until emptied)'),
  versionsBytes: z.number().int().describe('Earlier contents its saves kept as versions (they count until removed)'),
  reservedBytes: z.number().int().describe('Uploads, copies and extractions in flight, held before their bytes land'),
  measured: z
    .boolean()
    .describe('The folder-size index answers for it (FOLDER_SIZE_MODE=full); false: only what is in flight counts'),
});

const limitSource = {
  limitFrom: z
    .enum(['account', 'group'])
    .nullable()
    .describe("Where the limit comes from: the account's own quota, or its groups' largest default; null: none"),
  limitGroup: z.string().nullable().describe('The group whose default is the limit (limitFrom group)'),
};
export const accountUsage = usage.extend(limitSource);
export const accountQuota = accountUsage.extend({ userId: z.string(), username: z.string() });
export const groupQuota = z.object({
  groupId: z.string(),
  name: z.string(),
  defaultLimitBytes: z
    .number()
    .int()
    .nullable()
    .describe("The default quota of the group's members without one of their own; null: none"),
});
export const volumeQuota = usage.extend({ volume: z.string() });

export const myQuota = z.object({
  account: accountUsage
    .nullable()
    .describe("The caller's quota: its own, else its groups' largest default (null when neither is set)"),
  volumes: z.array(volumeQuota).describe('Volumes the caller sees that have a quota'),
});

export const quotaOverview = z.object({
  measuring: z.boolean().describe('Folder sizes run in full mode, so quotas can be measured'),
  accounts: z.array(accountQuota),
  volumes: z.array(volumeQuota),
  groups: z.array(groupQuota).describe("Every group and its members' default quota"),
});

export const limitBody = z.object({
  limitBytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().describe('Bytes; null removes the quota'),
});
export const groupQuotaParams = z.object({ id: z.string().min(1).max(64) });
export const accountQuotaParams = z.object({ id: z.string().min(1) });
export const volumeQuotaParams = z.object({ name: z.string().min(1).max(255) });
