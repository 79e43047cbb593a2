import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { DEFAULT_SIZES } from '../../domain/plan-assembly.js'
import type { PlanService } from '../../services/plan.service.js'
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
    async (req, reply) => {
      const q = req.query
      const sizes = { top: q.top, obs_top: q.obs_top, theme_cap: q.theme_cap }
      const result = await plans.getPlan({ date: q.date, sizes, nocache: q.nocache !== 0 })
      req.log.info(
        {
          client: req.ip,
          date: result.body.date,
          regime: result.meta.regime.status,
          generated_at: result.body.generated_at,
          plan_version: result.body.plan_version,
          ...sizes,
          cache: result.cache,
          plan_source: result.source,
          elapsed_s: Number((reply.elapsedTime / 1000).toFixed(4)),
        },
        'plan served',
      )
      if (q.format === 'md') {
        return reply.type('text/markdown; charset=utf-8').send(plans.renderMarkdown(result) as never)
      }
      return reply.type('application/json; charset=utf-8').send(result.bytes as never)
    },
  )

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
