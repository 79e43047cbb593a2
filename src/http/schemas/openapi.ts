import type { SwaggerOptions } from '@fastify/swagger'

/** The scheduler mount (`/api/v1/<scheduler>/*`) stays out of the public document: see the README. */
const PRIVATE_PREFIX = '/api/v1/'

/** `@fastify/swagger` options: an OpenAPI 3.1 document whose component names are the schemas' `$id`s. */
export function openapiOptions(version: string): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Daily Stock Plan Service',
        version,
        description:
          'Daily A-share stock-selection plan for internal consumers. Version 1 has no authentication (a trusted local network). Every error body is `{detail}`; a known path asked with another method answers 405 with `Allow`.',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
        contact: { name: 'Stock plan service maintainers' },
      },
      servers: [{ url: '/', description: 'this server' }],
      tags: [
        { name: 'plan', description: 'The daily plan, its dates and its file' },
        { name: 'lookup', description: 'Read-only per-code lookups' },
        { name: 'service', description: 'Liveness' },
        { name: 'track record', description: 'Forward returns of the published plans' },
      ],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url }) => ({
      url,
      schema: url.startsWith(PRIVATE_PREFIX) ? { ...schema, hide: true } : schema,
    }),
  }
}
