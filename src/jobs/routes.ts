// Rows of the route table for the background jobs (administrator session only).
import { route } from '../http/route.ts';
import type { Jobs } from './service.ts';
import { jobsAnswer } from './wire.ts';

export function jobsRoutes(jobs: Jobs) {
  return [
    route({
      method: 'GET',
      path: '/api/admin/jobs',
      access: 'admin',
      tags: ['Jobs'],
      summary:
        "The background jobs this instance knows: which instance holds each one's lease (several instances over one PostgreSQL), and its runs, failures in a row and last error here",
      responses: { 200: { description: 'This instance and its jobs', schema: jobsAnswer } },
      handler: () => jobs.list(),
    }),
  ];
}
