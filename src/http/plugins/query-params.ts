import type { FastifyInstance, preValidationHookHandler } from 'fastify'
import { unprocessable } from '../error-status.js'

interface QuerySchema {
  readonly properties?: Readonly<Record<string, { readonly type?: unknown; readonly default?: unknown }>>
}

const DECIMAL_INTEGER = /^-?\d+$/

const shown = (value: string): string => JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)

/**
 * Before the schema coerces the query: each parameter the route knows is given at most once, and an integer
 * parameter is a decimal integer (ajv's coercion would take `0x2`, `1e1`, `+5`, `0b1` or `Infinity`). The check is
 * bound to each route with a query schema when it is registered: a route without one runs no hook, and a request
 * reads no route options (Fastify builds them afresh on every read).
 */
export function installQueryChecks(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const known = (route.schema?.querystring as QuerySchema | undefined)?.properties
    if (!known) return
    const check: preValidationHookHandler = (req, _reply, done) => {
      // a callback hook, not an async one: no promise per request on the cached plan path
      const query = req.query as Record<string, unknown>
      for (const name in query) {
        const property = known[name]
        if (!property) continue
        const value = query[name]
        if (Array.isArray(value)) return done(unprocessable(`${name} must be given once, not ${value.length} times`))
        if (property.type === 'integer' && typeof value === 'string' && !DECIMAL_INTEGER.test(value)) {
          // the example is the parameter's default when it has one: a value the route accepts (horizon=10 is not)
          const example = typeof property.default === 'number' ? property.default : 10
          return done(unprocessable(`${name} must be a decimal integer, e.g. ${name}=${example} (got ${shown(value)})`))
        }
      }
      done()
    }
    const own = route.preValidation === undefined ? [] : [route.preValidation].flat()
    // before the route's own: a new array, as Fastify copied these options for the route's HEAD twin
    route.preValidation = [check, ...own]
  })
}
