// Wire shapes of the background jobs' state (GET /api/admin/jobs).
import { z } from 'zod';

export const jobState = z.object({
  name: z.string().describe('The job: `trash.purge`, `accounts.sweep`, `notify.send`…'),
  label: z.string().describe('What it does, in words'),
  holder: z
    .string()
    .nullable()
    .describe(
      'The instance that holds its lease now (several instances over one PostgreSQL), this instance on the embedded database; null while no instance holds it',
    ),
  leaseExpiresAt: z
    .string()
    .nullable()
    .describe('When its lease lapses unless renewed (null on the embedded database)'),
  runsHere: z.number().int().describe('Runs on this instance since it started'),
  doneHere: z.number().int().describe('Things its runs on this instance did (entries removed, messages sent…)'),
  lastRunAt: z.string().nullable().describe('The end of its last run on this instance'),
  failuresInRow: z
    .number()
    .int()
    .describe(
      'Its runs that failed in a row on this instance (the administrators are told at 3, and when it recovers)',
    ),
  lastError: z.string().nullable().describe('Why its last run failed, while it keeps failing'),
});

export const jobsAnswer = z.object({
  instance: z.string().describe('This instance (random per start)'),
  jobs: z.array(jobState),
});
export type JobsAnswer = z.infer<typeof jobsAnswer>;
