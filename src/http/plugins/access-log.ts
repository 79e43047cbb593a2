import type { FastifyInstance } from 'fastify'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Routes that write their own, richer access line set this to false. */
    accessLog?: boolean
  }
}

/** One structured line per request: client, method, path, status, elapsed seconds. */
export function installAccessLog(app: FastifyInstance): void {
  app.addHook('onResponse', async (req, reply) => {
    if (reply.routeOptions.config.accessLog === false && reply.statusCode < 400) return
    req.log.info(
      {
        client: req.ip,
        method: req.method,
        path: req.url.split('?')[0],
        status: reply.statusCode,
        elapsed_s: Number((reply.elapsedTime / 1000).toFixed(4)),
      },
      'access',
    )
  })
}
