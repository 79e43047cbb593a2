import type { FastifyInstance } from 'fastify'
import { unprocessable } from '../error-status.js'

interface QuerySchema {
  readonly properties?: Readonly<Record<string, { readonly type?: unknown }>>
}

const DECIMAL_INTEGER = /^-?\d+$/

const shown = (value: string): string => JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)

/**
 * Before the schema coerces the query: each parameter the route knows is given at most once, and an integer
 * parameter is a decimal integer (ajv's coercion would take `0x2`, `1e1`, `+5`, `0b1` or `Infinity`).
 */
export function installQueryChecks(app: FastifyInstance): void {
  // a callback hook, not an async one: no promise per request on the cached plan path
  app.addHook('preValidation', (req, _reply, done) => {
    const schema = req.routeOptions.schema?.querystring as QuerySchema | undefined
    const known = schema?.properties
    if (known) {
      for (const [name, value] of Object.entries(req.query as Record<string, unknown>)) {
        const property = known[name]
        if (!property) continue
        if (Array.isArray(value)) return done(unprocessable(`${name} must be given once, not ${value.length} times`))
        if (property.type === 'integer' && typeof value === 'string' && !DECIMAL_INTEGER.test(value)) {
          return done(unprocessable(`${name} must be a decimal integer, e.g. ${name}=10 (got ${shown(value)})`))
        }
      }
    }
    done()
  })
}
