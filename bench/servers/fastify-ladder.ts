/**
 * An ablation ladder for bench/cached-plan.bench.ts --ladder: a Fastify route sending the service's plan bytes, with
 * the service's own pieces added one at a time, up to `step` (0 = bare Fastify; the names are in the bench's LADDER). Each piece is the module the
 * service itself uses, so the difference between two steps is what that piece costs on a cached hit.
 *   node --import tsx bench/servers/fastify-ladder.ts <port> <body file> <step>
 */
import { readFileSync } from 'node:fs'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import Fastify, { type FastifyInstance } from 'fastify'
import { fastifyOptions } from '../../src/http/app.js'
import { installAccessLog } from '../../src/http/plugins/access-log.js'
import { installErrorHandler } from '../../src/http/plugins/error-handler.js'
import { installQueryChecks } from '../../src/http/plugins/query-params.js'
import { PlanQuery } from '../../src/http/routes/plan.routes.js'
import { Ref } from '../../src/http/schemas/common.schema.js'
import { componentSchemas } from '../../src/http/schemas/index.js'
import { openapiOptions } from '../../src/http/schemas/openapi.js'
import { createLogger } from '../../src/logger.js'
import { createMetrics } from '../../src/services/metrics.js'

const [port, file, stepText] = process.argv.slice(2) as [string, string, string]
const step = Number(stepText)
const body = readFileSync(file)
const log = createLogger({ logLevel: 'info' })
const app: FastifyInstance = step >= 2 ? Fastify(fastifyOptions(log)) : Fastify({ logger: false })
if (step >= 6) installErrorHandler(app)
if (step >= 5) installAccessLog(app, { log, metrics: createMetrics({ defaults: step >= 7 }) })
if (step >= 8) {
  for (const schema of componentSchemas) app.addSchema(schema)
  await app.register(swagger, openapiOptions('0.1'))
  await app.register(swaggerUi, { routePrefix: '/docs' })
}
if (step >= 4) installQueryChecks(app)
const line = log.child({
  date: '2026-01-01',
  regime: 'ok',
  generated_at: '2026-01-01T00:00:00Z',
  plan_version: 1,
  top: 30,
  obs_top: 30,
  theme_cap: 3,
  plan_source: 'snapshot',
})
app.get(
  '/plan',
  {
    config: { accessLog: false },
    schema: {
      ...(step >= 3 ? { querystring: PlanQuery } : {}),
      ...(step >= 8 ? { response: { 200: { content: { 'application/json': { schema: Ref('Plan') } } } } } : {}),
    },
  },
  (req, reply) => {
    if (step >= 1) {
      const format = (req.query as { format?: string }).format ?? 'json'
      line.info(
        {
          reqId: req.id,
          client: req.ip,
          cache: 'hit',
          format,
          status: 200,
          elapsed_s: Math.round(reply.elapsedTime * 1000) / 1e6,
        },
        'plan served',
      )
    }
    reply.type('application/json; charset=utf-8').send(body)
  },
)
await app.listen({ port: Number(port), host: '127.0.0.1' })
process.send?.('listening')
// a clean exit, so that --cpu-prof writes its profile
process.on('SIGTERM', () => process.exit(0))
