import { performance } from 'node:perf_hooks'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify'
import type { Config } from '../config.js'
import type { Logger } from '../logger.js'
import { deadlineProbe } from '../services/deadline.js'
import { demoMarketInStore } from '../services/demo-market.js'
import type { LogicStateService } from '../services/logic-state.service.js'
import { createMetrics, type Metrics } from '../services/metrics.js'
import type { PlanService } from '../services/plan.service.js'
import type { StockService } from '../services/stock.service.js'
import type { TrackRecordService } from '../services/track-record.service.js'
import type { VerdictService } from '../services/verdict.service.js'
import type { TierRepository } from '../storage/tier.repository.js'
import { closeConnectionsWhenIdle } from './connection-closer.js'
import type { ConnectionLimits, Refusal } from './connection-limits.js'
import { defaultMaxConnections, descriptorLimit, descriptorReserve } from './descriptor-limit.js'
import { createPlanHitLane, serverWithLane } from './plan-hit-lane.js'
import { createPlanResponses } from './plan-response.js'
import { installAccessLog } from './plugins/access-log.js'
import { clientErrorHandler, frameworkErrors, installErrorHandler } from './plugins/error-handler.js'
import { installQueryChecks } from './plugins/query-params.js'
import { installRequestGuard, refusedHost } from './plugins/request-guard.js'
import { docsCsp, installSecurityHeaders } from './plugins/security-headers.js'
import { lazyRequestLogger } from './request-logger.js'
import datesRoutes from './routes/dates.routes.js'
import healthRoutes from './routes/health.routes.js'
import logicStateRoutes from './routes/logic-state.routes.js'
import metricsRoutes from './routes/metrics.routes.js'
import planRoutes from './routes/plan.routes.js'
import stockRoutes from './routes/stock.routes.js'
import trackRecordRoutes from './routes/track-record.routes.js'
import trackRecordViewerRoutes from './routes/track-record-viewer.routes.js'
import verdictRoutes from './routes/verdict.routes.js'
import viewerRoutes from './routes/viewer.routes.js'
import { sharedSchemaCompilers } from './schema-compilers.js'
import { componentSchemas } from './schemas/index.js'
import { openapiOptions } from './schemas/openapi.js'

/** What the HTTP app needs, by name: the composition root passes these, never its whole set of services. */
export interface AppDeps {
  readonly config: Config
  readonly log: Logger
  readonly tiers: TierRepository
  readonly plans: PlanService
  readonly verdicts: VerdictService
  readonly logicStates: LogicStateService
  readonly trackRecord: TrackRecordService
  readonly stocks: StockService
  /** Request metrics and `GET /metrics`; a fresh registry when not given. */
  readonly metrics?: Metrics
  /** Registered last, e.g. the scheduler router when its key is configured. */
  readonly extraPlugins?: ReadonlyArray<(app: FastifyInstance) => Promise<void>>
}

export const APP_VERSION = '0.1'
const HEALTH_PROBE_MS = 1500

/** Fastify's own request ids (`req-1`, `req-2`, … in base 36), as one function the plan hit lane shares. */
export function requestIds(): () => string {
  let next = 0
  return () => {
    next = (next + 1) & 0x7fffffff
    return `req-${next.toString(36)}`
  }
}

/** The Fastify options of the service's app (also built by bench/servers/fastify-ladder.ts, piece by piece). */
export function fastifyOptions(log: Logger, nextRequestId: () => string = requestIds()) {
  return {
    loggerInstance: log as FastifyBaseLogger,
    genReqId: nextRequestId,
    // one access line per request comes from our own onResponse hook (and the plan route's richer line)
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyRequestLogger,
    routerOptions: { maxParamLength: 200 },
    bodyLimit: 1024 * 1024,
    requestTimeout: 120_000,
    // errors answered before routing, and requests node's parser refuses, are {detail} too
    frameworkErrors,
    clientErrorHandler,
    schemaController: { compilersFactory: sharedSchemaCompilers },
    ajv: {
      customOptions: {
        coerceTypes: true,
        useDefaults: true,
        removeAdditional: true,
        allErrors: false,
        // with strictNumbers on, ajv coerces a query number that overflows (`limit=1e400`, 309+ digits) to Infinity
        // and then skips minimum/maximum for the non-finite value (a 500 further on); off, the bounds give a 422
        strictNumbers: false,
      },
    },
  } as const
}

/** The config's connection settings, the overall cap derived from the descriptor limit when it is not set. */
export function connectionLimits(config: Config): ConnectionLimits {
  const { maxConnections, ...rest } = config.http
  const reserve = descriptorReserve({ children: config.xxlJob.maxRunning })
  return { ...rest, maxConnections: maxConnections ?? defaultMaxConnections(descriptorLimit(), reserve) }
}

const REFUSAL_LOG_EVERY_MS = 10_000

/** A warning for the first refused connection, then at most one every 10 s with how many were refused meanwhile. */
function refusalLog(log: Logger): (refusal: Refusal) => void {
  let lastAt = Number.NEGATIVE_INFINITY
  let unlogged = 0
  return (refusal) => {
    unlogged++
    const now = performance.now()
    if (now - lastAt < REFUSAL_LOG_EVERY_MS) return
    log.warn({ ...refusal, refused: unlogged }, 'connections refused: over a connection cap')
    lastAt = now
    unlogged = 0
  }
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const metrics = deps.metrics ?? createMetrics({ defaults: false })
  const nextRequestId = requestIds()
  const planResponses = createPlanResponses(deps.log)
  const lane = createPlanHitLane({
    plans: deps.plans,
    responses: planResponses,
    observeRequest: metrics.observeRequest,
    nextRequestId,
    answered: metrics.planHitLane,
    acceptsHost: (host) => refusedHost(host, deps.config.allowedHosts) === undefined,
  })
  const app = Fastify({
    ...fastifyOptions(deps.log, nextRequestId),
    serverFactory: serverWithLane(lane, connectionLimits(deps.config), refusalLog(deps.log)),
  }).withTypeProvider<TypeBoxTypeProvider>()
  const connections = closeConnectionsWhenIdle(app.server)
  app.addHook('preClose', (done) => {
    lane.stop()
    connections.closeWhenIdle()
    done()
  })

  installErrorHandler(app)
  installAccessLog(app, { log: deps.log, metrics })
  installSecurityHeaders(app)
  installRequestGuard(app, deps.config)
  await app.register(metricsRoutes, { metrics })
  for (const schema of componentSchemas) app.addSchema(schema)
  installQueryChecks(app)
  await app.register(swagger, openapiOptions(APP_VERSION))
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    transformStaticCSP: docsCsp,
    uiHooks: {
      onRequest: (_req, reply, done) => {
        reply.header('x-frame-options', 'DENY')
        done()
      },
    },
  })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())

  await app.register(healthRoutes, {
    // its own short deadline: a frozen store is `ok:false` at once, not when the store wakes
    latestPlanDate: deadlineProbe(() => deps.tiers.latestDate(), HEALTH_PROBE_MS, 'the store'),
    poolTop: deps.config.poolTop,
    poolMax: deps.config.poolMax,
  })
  await app.register(datesRoutes, { listDates: (limit) => deps.tiers.listDates(limit) })
  await app.register(planRoutes, { plans: deps.plans, responses: planResponses, lane })
  await app.register(verdictRoutes, { verdicts: deps.verdicts })
  await app.register(logicStateRoutes, { logicStates: deps.logicStates })
  await app.register(stockRoutes, { stocks: deps.stocks })
  await app.register(viewerRoutes, { version: APP_VERSION })
  await app.register(trackRecordRoutes, { trackRecord: deps.trackRecord })
  await app.register(trackRecordViewerRoutes, {
    demoMarket: () => demoMarketInStore(deps.config.demoDataDir, () => deps.tiers.latestDate()),
  })
  for (const plugin of deps.extraPlugins ?? []) await plugin(app)
  return app
}
