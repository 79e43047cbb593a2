import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { DEFAULT_SIZES } from '../../domain/plan-assembly.js'
import type { PlanResult, PlanService } from '../../services/plan.service.js'
import { ErrorSchema, IsoDateSchema } from '../schemas/common.schema.js'

export interface PlanRouteDeps {
  readonly plans: PlanService
}

const PlanQuery = Type.Object({
  date: Type.Optional(IsoDateSchema),
  format: Type.String({ default: 'json', description: '`md` returns Markdown; any other value JSON' }),
  top: Type.Integer({ minimum: 1, maximum: 200, default: DEFAULT_SIZES.top }),
  obs_top: Type.Integer({ minimum: 1, maximum: 200, default: DEFAULT_SIZES.obs_top }),
  theme_cap: Type.Integer({ minimum: 1, maximum: 50, default: DEFAULT_SIZES.theme_cap }),
  nocache: Type.Integer({
    minimum: -2147483648,
    maximum: 2147483647,
    default: 0,
    description: 'nonzero forces recomputation',
  }),
})

const PlanResponse = Type.Object(
  {
    date: Type.String(),
    main: Type.Array(Type.Object({}, { additionalProperties: true })),
    observe: Type.Array(Type.Object({}, { additionalProperties: true })),
    generated_at: Type.String(),
    plan_version: Type.String(),
    regime: Type.Object({
      status: Type.String(),
      weak_day: Type.Union([Type.Boolean(), Type.Null()]),
      source: Type.String(),
    }),
    card_counts: Type.Object({}, { additionalProperties: true }),
    candidates: Type.Array(Type.Object({}, { additionalProperties: true })),
    watch: Type.Array(Type.Object({}, { additionalProperties: true })),
    segments_pointed: Type.Array(Type.Object({}, { additionalProperties: true })),
    snapshot: Type.Union([Type.Literal('present'), Type.Literal('missing')]),
    market: Type.Object({}, { additionalProperties: true }),
    plan_source: Type.Union([Type.Literal('snapshot'), Type.Literal('live')]),
  },
  { description: 'The plan; with format=md the body is text/markdown' },
)

const planRoutes: FastifyPluginAsyncTypebox<PlanRouteDeps> = async (app, { plans }) => {
  app.get(
    '/plan',
    {
      config: { accessLog: false },
      schema: {
        summary: 'The plan for the latest or a chosen data date',
        querystring: PlanQuery,
        // the body is written pre-serialised (see plan.service); the schema documents it
        response: { 200: PlanResponse, 404: ErrorSchema, 422: ErrorSchema, 503: ErrorSchema },
      },
    },
    (req, reply) => {
      const q = req.query
      const sizes = { top: q.top, obs_top: q.obs_top, theme_cap: q.theme_cap }
      // a hit is answered in this tick: no await chain between the cache and the socket
      const hit = q.nocache === 0 ? plans.cachedPlan({ date: q.date, sizes }) : undefined
      if (hit) return send(req, reply, q.format, hit)
      return plans.getPlan({ date: q.date, sizes, nocache: q.nocache !== 0 }).then((result) => {
        send(req, reply, q.format, result)
      })
    },
  )

  /**
   * The spec's access line. Its fields fixed for one response body (date, regime status, generated_at,
   * plan_version, the three sizes, plan source) are bound once per body in a child of the root logger, which
   * pino serialises once; a line then costs only the per-request fields.
   */
  const bodyLoggers = new WeakMap<Buffer, FastifyBaseLogger>()
  function send(req: FastifyRequest, reply: FastifyReply, format: string, result: PlanResult): void {
    let log = bodyLoggers.get(result.bytes)
    if (!log) {
      log = app.log.child({
        date: result.body.date,
        regime: result.meta.regime.status,
        generated_at: result.body.generated_at,
        plan_version: result.body.plan_version,
        top: result.sizes.top,
        obs_top: result.sizes.obs_top,
        theme_cap: result.sizes.theme_cap,
        plan_source: result.source,
      })
      bodyLoggers.set(result.bytes, log)
    }
    log.info(
      { reqId: req.id, client: req.ip, cache: result.cache, elapsed_s: Math.round(reply.elapsedTime * 1000) / 1e6 },
      'plan served',
    )
    if (format === 'md') {
      reply.type('text/markdown; charset=utf-8').send(plans.renderMarkdown(result))
      return
    }
    reply.type('application/json; charset=utf-8').send(result.bytes)
  }

  app.post(
    '/plan/refresh',
    {
      schema: {
        summary: 'Regenerate the Markdown plan file for a date and clear the plan cache',
        querystring: Type.Object({ date: Type.Optional(IsoDateSchema) }),
        response: {
          200: Type.Object({ ok: Type.Literal(true), file: Type.String() }),
          404: ErrorSchema,
          422: ErrorSchema,
          503: ErrorSchema,
        },
      },
    },
    async (req) => ({ ok: true as const, file: await plans.refreshPlanFile(req.query.date) }),
  )
}

export default planRoutes
