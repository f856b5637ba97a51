// The OpenAPI 3.1 description, written from the same route rows that are mounted.
import { z } from 'zod';
import { parse as parsePattern } from 'regexparam';
import { ERROR_CODES } from '../core/errors.ts';
import { effectiveScope, type RouteDef } from './route.ts';

/** `/api/shares/:id` → `/api/shares/{id}`; `/api/browse/*` → `/api/browse/{path}`. */
export function openApiPath(pattern: string): string {
  return pattern.replace(/:([A-Za-z0-9_]+)\??/g, '{$1}').replace(/\*$/, '{path}');
}

/** Request parts are described as sent (io: input), answers as produced (io: output). */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { unrepresentable: 'any', io }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

const ACCESS_TEXT: Record<RouteDef['access'], string> = {
  public: 'Public.',
  link: 'Share-link holders (public as far as credentials go).',
  session: 'Session cookie only; API tokens are refused.',
  account: 'Session cookie or API token.',
  admin: 'Administrator session only; API tokens are refused.',
  callback: 'The calling server, by the access_token the row names (no cookie, no API token).',
};

export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, unknown>;
}

export function buildOpenApi(routes: readonly RouteDef[], version = 'unversioned'): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const def of routes) {
    const p = openApiPath(def.path);
    const { keys } = parsePattern(def.path);
    // A row without a params schema is described as a bare string marked x-unvalidated;
    // test/api/openapi.test.ts lists such rows until they are converted.
    const paramProps = def.params
      ? ((jsonSchema(def.params) as { properties?: Record<string, unknown> }).properties ?? {})
      : {};
    const parameters: unknown[] = keys.map((key) => {
      const name = key === '*' ? 'path' : key;
      return {
        name,
        in: 'path',
        required: key !== '*',
        schema: paramProps[name] ?? { type: 'string' },
        ...(paramProps[name] ? {} : { 'x-unvalidated': true }),
        ...(key === '*'
          ? { description: 'A virtual path; slashes kept, each segment percent-encoded; empty means the top.' }
          : {}),
      };
    });
    if (def.query) {
      const schema = jsonSchema(def.query) as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, prop] of Object.entries(schema.properties ?? {})) {
        parameters.push({ name, in: 'query', required: schema.required?.includes(name) ?? false, schema: prop });
      }
    }
    for (const [name, description] of Object.entries(def.requestHeaders ?? {})) {
      parameters.push({ name, in: 'header', required: false, description, schema: { type: 'string' } });
    }
    const responses: Record<string, unknown> = {};
    for (const [status, spec] of Object.entries(def.responses)) {
      const r = typeof spec === 'string' ? { description: spec } : spec;
      responses[status] = {
        description: r.description,
        ...(r.schema
          ? { content: { [r.contentType ?? 'application/json']: { schema: jsonSchema(r.schema, 'output') } } }
          : r.contentType
            ? { content: { [r.contentType]: {} } }
            : {}),
      };
    }
    responses.default = { $ref: '#/components/responses/Error' };
    const operation: Record<string, unknown> = {
      operationId: `${def.method.toLowerCase()}${p.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      summary: def.summary,
      description: [
        def.description,
        `Access: ${ACCESS_TEXT[def.access]}`,
        def.access === 'account' ? `Token scope: ${effectiveScope(def)}.` : '',
      ]
        .filter(Boolean)
        .join('\n\n'),
      tags: def.tags,
      'x-access': def.access,
      ...(def.access === 'account' ? { 'x-scope': effectiveScope(def) } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(def.body && def.body !== 'stream'
        ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(def.body) } } } }
        : {}),
      ...(def.body === 'stream'
        ? { requestBody: { required: false, content: { 'application/octet-stream': {} } } }
        : {}),
      responses,
      security:
        def.access === 'public' || def.access === 'link' || def.access === 'callback'
          ? []
          : def.access === 'account'
            ? [{ session: [] }, { bearer: [] }]
            : [{ session: [] }],
    };
    (paths[p] ??= {})[def.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Burrow',
      version,
      description:
        'The HTTP API of Burrow, a self-hosted web file manager. Everything the web interface does goes through this API.\n\nNot part of this JSON API: a WebDAV server (RFC 4918, class 1 and 2) at `/dav/` for mounting the same files as a drive, signed in with HTTP Basic (account name and password, or an API token; a read token mounts read-only). GET /api/features says whether it is on (`webdav`).',
      'x-webdav': {
        path: '/dav/',
        protocol: 'WebDAV (RFC 4918) class 1, 2',
        authentication: 'HTTP Basic: account name + password or API token',
        feature: 'webdav',
      },
    },
    paths,
    components: {
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: 'connect.sid' },
        bearer: { type: 'http', scheme: 'bearer', description: 'API token (`Authorization: Bearer <token>`).' },
      },
      responses: {
        Error: {
          description: 'Error envelope',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['success', 'error'],
                properties: {
                  success: { const: false },
                  error: {
                    type: 'object',
                    required: ['message', 'statusCode', 'requestId'],
                    properties: {
                      message: { type: 'string' },
                      statusCode: { type: 'integer' },
                      requestId: { type: 'string' },
                      code: {
                        type: 'string',
                        enum: ERROR_CODES,
                        description:
                          'From the error catalogue (src/core/errors.ts); the status of each code is fixed there.',
                      },
                      details: {
                        type: 'object',
                        additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }] },
                        description:
                          'Figures behind the refusal, for a client to show (QUOTA_EXCEEDED: scope, usedBytes, limitBytes, neededBytes).',
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  };
}
