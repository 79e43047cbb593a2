import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify'
import type { Logger } from '../../logger.js'
import type { Metrics } from '../../services/metrics.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Routes that write their own, richer access line set this to false. */
    accessLog?: boolean
    /** With `accessLog: false`: the route's own line for a failed request (4xx/5xx), instead of the generic one. */
    failureLine?: (req: FastifyRequest, reply: FastifyReply) => void
  }
}

type RouteConfig = { accessLog?: boolean; failureLine?: (req: FastifyRequest, reply: FastifyReply) => void }

/**
 * After every response: the request metrics and one structured access line (client, method, path, status,
 * elapsed seconds) through the root logger. Each route gets its own callback hook with its path and config bound
 * when it is registered (Fastify's `routeOptions` builds a fresh object on every read); requests no route matched
 * (404, 405, malformed paths) are counted by one global hook as `unmatched`. No promise per request.
 */
export function installAccessLog(app: FastifyInstance, deps: { log: Logger; metrics: Metrics }): void {
  const { log, metrics } = deps
  const accessLine = (req: FastifyRequest, status: number, seconds: number): void => {
    const query = req.url.indexOf('?')
    log.info(
      {
        reqId: req.id,
        client: req.ip,
        method: req.method,
        path: query < 0 ? req.url : req.url.slice(0, query),
        status,
        elapsed_s: Number(seconds.toFixed(4)),
      },
      'access',
    )
  }
  const hookFor =
    (route: string, config: RouteConfig): onResponseHookHandler =>
    (req, reply, done) => {
      const status = reply.statusCode
      const seconds = reply.elapsedTime / 1000
      metrics.observeRequest(route, req.method, status, seconds)
      if (config.accessLog !== false) accessLine(req, status, seconds)
      else if (status >= 400) {
        if (config.failureLine) config.failureLine(req, reply)
        else accessLine(req, status, seconds)
      }
      done()
    }
  app.addHook('onRoute', (route) => {
    const own = route.onResponse === undefined ? [] : [route.onResponse].flat()
    // a new array: Fastify copied these options for the route's HEAD twin, which gets its own hook the same way
    route.onResponse = [...own, hookFor(route.url, (route.config ?? {}) as RouteConfig)]
  })
  const unmatched = hookFor('unmatched', {})
  app.addHook('onResponse', (req, reply, done) => {
    if (req.is404) return unmatched.call(app, req, reply, done)
    done()
  })
}
