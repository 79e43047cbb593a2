import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
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

/**
 * After every response: the request metrics and one structured access line (client, method, path, status,
 * elapsed seconds) through the root logger. One callback hook rather than two async ones: no promise per request.
 */
export function installAccessLog(app: FastifyInstance, deps: { log: Logger; metrics: Metrics }): void {
  const { log, metrics } = deps
  app.addHook('onResponse', (req, reply, done) => {
    const status = reply.statusCode
    metrics.observeRequest(req.routeOptions.url ?? 'unmatched', req.method, status, reply.elapsedTime / 1000)
    const config = reply.routeOptions.config
    if (config.accessLog === false && status < 400) return done()
    if (config.accessLog === false && config.failureLine) {
      config.failureLine(req, reply)
      return done()
    }
    const query = req.url.indexOf('?')
    log.info(
      {
        reqId: req.id,
        client: req.ip,
        method: req.method,
        path: query < 0 ? req.url : req.url.slice(0, query),
        status,
        elapsed_s: Number((reply.elapsedTime / 1000).toFixed(4)),
      },
      'access',
    )
    done()
  })
}
