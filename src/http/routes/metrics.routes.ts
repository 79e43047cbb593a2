import type { FastifyPluginAsync } from 'fastify'
import type { Metrics } from '../../services/metrics.js'

/** `GET /metrics` in the Prometheus text format, and the per-request counters behind it. */
const metricsRoutes: FastifyPluginAsync<{ metrics: Metrics }> = async (app, { metrics }) => {
  app.get('/metrics', { schema: { hide: true }, config: { accessLog: false } }, async (_req, reply) => {
    reply.type(metrics.registry.contentType)
    return metrics.registry.metrics()
  })
}

export default metricsRoutes
