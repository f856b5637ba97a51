// Health probes, the API description and the feature flags of this instance.
import { buildOpenApi, type OpenApiDocument } from '../http/openapi.ts';
import type { IncomingMessage } from 'node:http';
import { route, reply, type RouteDef } from '../http/route.ts';
import { thirdPartyNotices } from './notices.ts';
import { features, health, licensesText, openApiDocument, type FeatureSections, type NetworkSection } from './wire.ts';

export interface SystemDeps {
  /** All mounted routes (read when the description is asked for). */
  routes: () => readonly RouteDef[];
  /** false while starting or stopping; 'database-unavailable' while the database cannot be reached. */
  isReady: () => boolean | 'database-unavailable';
  /** Feature sections, merged from every capability. */
  features: () => FeatureSections;
  /** The `network` section for this request (network.ts). */
  network: (req: IncomingMessage) => NetworkSection;
  version: string;
  /** The `webhooks` section: what this server POSTs to other programs (OpenAPI 3.1). */
  webhooks?: () => Record<string, unknown>;
}

export function systemRoutes(deps: SystemDeps) {
  let description: (OpenApiDocument & { 'x-release': string }) | undefined;
  return [
    route({
      method: 'GET',
      path: '/healthz',
      access: 'public',
      tags: ['System'],
      summary: 'Liveness probe: the process answers.',
      responses: { 200: { description: 'Alive', schema: health } },
      handler: () => ({ status: 'ok' }),
    }),
    route({
      method: 'GET',
      path: '/readyz',
      access: 'public',
      tags: ['System'],
      summary: 'Readiness probe: the database is open, migrated and reachable.',
      responses: { 200: { description: 'Ready', schema: health }, 503: { description: 'Not ready', schema: health } },
      handler: () => {
        const ready = deps.isReady();
        if (ready === true) return { status: 'ok' as const };
        return reply(503, { status: ready === false ? ('starting' as const) : ready });
      },
    }),
    route({
      method: 'GET',
      path: '/api/openapi.json',
      access: 'public',
      tags: ['System'],
      summary: 'The OpenAPI 3.1 description of this running release.',
      responses: { 200: { description: 'OpenAPI document', schema: openApiDocument } },
      handler: () =>
        (description ??= {
          ...buildOpenApi(deps.routes()),
          ...(deps.webhooks ? { webhooks: deps.webhooks() } : {}),
          'x-release': deps.version,
        }),
    }),
    route({
      method: 'GET',
      path: '/licenses.txt',
      access: 'public',
      tags: ['System'],
      summary: 'The third-party notices: every package inside this release, its licence and licence text.',
      description:
        'The same text as `burrow --licenses` and THIRD-PARTY-NOTICES.txt beside the executables: Node.js, the packages of the server, its workers and the web interface, the native add-ons and the WebAssembly (with how to replace the LGPL ones). `text/plain; charset=utf-8`.',
      responses: { 200: { description: 'The notices', contentType: 'text/plain', schema: licensesText } },
      handler: () =>
        reply(200, thirdPartyNotices(), { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache' }),
    }),
    route({
      method: 'GET',
      path: '/api/features',
      access: 'public',
      tags: ['System'],
      summary: 'Feature flags of this instance.',
      description:
        '`network` is about the asking page: opened at a loopback address from this computer while PUBLIC_URL is unset, it lists the LAN addresses other devices use.',
      responses: {
        200: { description: 'Feature sections; every section present has a boolean `enabled`.', schema: features },
      },
      handler: ({ req }) => ({ version: deps.version, ...deps.features(), network: deps.network(req) }),
    }),
  ];
}
