import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { renderPlanMarkdown } from '../../domain/markdown.js'
import { DEFAULT_SIZES } from '../../domain/plan-assembly.js'
import type { PlanResult, PlanService } from '../../services/plan.service.js'
import type { PlanHitLane } from '../plan-hit-lane.js'
import { logPlanServed, matchesEtag, PLAN_CACHE_CONTROL, type PlanJson, type PlanResponse } from '../plan-response.js'
import { errorResponse, IsoDateSchema, json, Ref } from '../schemas/common.schema.js'
import { EXAMPLES } from '../schemas/examples.js'
import { PlanMarkdownSchema } from '../schemas/plan.schema.js'
import { edgeResponses } from '../schemas/responses.js'

export interface PlanRouteDeps {
  readonly plans: PlanService
  /** The bytes of a result, made once per cached cut and snapshot state (`createPlanResponses`). */
  readonly responses: (result: PlanResult, serialize: (plan: PlanJson) => string) => PlanResponse
  /** Told each URL answered with JSON, so that it may answer that URL's later cache hits before routing. */
  readonly lane?: Pick<PlanHitLane, 'learn'>
}

export const PlanQuery = Type.Object({
  date: Type.Optional(IsoDateSchema),
  format: Type.Optional(Type.String({ default: 'json', description: '`md` returns Markdown; any other value JSON' })),
  top: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 200, default: DEFAULT_SIZES.top, description: 'main list size' }),
  ),
  obs_top: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 200, default: DEFAULT_SIZES.obs_top, description: 'observation list size' }),
  ),
  theme_cap: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 50, default: DEFAULT_SIZES.theme_cap, description: 'per-theme cap' }),
  ),
  nocache: Type.Optional(
    Type.Integer({
      minimum: -2147483648,
      maximum: 2147483647,
      default: 0,
      description: 'nonzero forces recomputation',
    }),
  ),
})

interface PlanQueryValues {
  date?: unknown
  format?: unknown
  top?: unknown
  obs_top?: unknown
  theme_cap?: unknown
}

/** The plan access line of a failed `GET /plan`: what is known of the request, its format and its status. */
function planFailureLine(req: FastifyRequest, reply: FastifyReply): void {
  const q = (req.query ?? {}) as PlanQueryValues
  req.log.info(
    {
      client: req.ip,
      date: typeof q.date === 'string' ? q.date : null,
      regime: null,
      generated_at: null,
      plan_version: null,
      top: typeof q.top === 'number' ? q.top : null,
      obs_top: typeof q.obs_top === 'number' ? q.obs_top : null,
      theme_cap: typeof q.theme_cap === 'number' ? q.theme_cap : null,
      cache: null,
      plan_source: null,
      format: typeof q.format === 'string' ? q.format.slice(0, 40) : 'json',
      status: reply.statusCode,
      elapsed_s: Number((reply.elapsedTime / 1000).toFixed(4)),
    },
    'plan failed',
  )
}

const planRoutes: FastifyPluginAsyncTypebox<PlanRouteDeps> = async (app, { plans, responses, lane }) => {
  app.get(
    '/plan',
    {
      config: { accessLog: false, failureLine: planFailureLine },
      schema: {
        operationId: 'getPlan',
        tags: ['plan'],
        summary: 'The plan for the latest or a chosen data date',
        description:
          "Cut from the day's snapshot (milliseconds) or assembled live (tens of seconds), cached per date and sizes. `format=md` answers the Markdown rendering as `text/markdown; charset=utf-8`.",
        querystring: PlanQuery,
        // the JSON body is written by this schema's serializer (see send)
        response: {
          200: {
            description: 'The plan: JSON, or Markdown with `format=md`',
            content: {
              'application/json': { schema: Ref('Plan') },
              'text/markdown': { schema: PlanMarkdownSchema, example: EXAMPLES.planMarkdown },
            },
          },
          404: errorResponse('No plan can be assembled for the date (an empty tier table, or no rows that day)'),
          422: errorResponse('A parameter is malformed, out of range or repeated'),
          503: errorResponse('The store is unreachable and the day has no usable snapshot'),
          ...edgeResponses,
        },
      },
    },
    (req, reply) => {
      const q = req.query
      // defaults are filled by the schema; the fallbacks only satisfy the optional types
      const sizes = {
        top: q.top ?? DEFAULT_SIZES.top,
        obs_top: q.obs_top ?? DEFAULT_SIZES.obs_top,
        theme_cap: q.theme_cap ?? DEFAULT_SIZES.theme_cap,
      }
      const format = q.format ?? 'json'
      const nocache = q.nocache ?? 0
      // a hit is answered in this tick: no await chain between the cache and the socket
      const hit = nocache === 0 ? plans.cachedPlan({ date: q.date, sizes }) : undefined
      if (hit) return send(req, reply, format, hit, sizes)
      return plans.getPlan({ date: q.date, sizes, nocache: nocache !== 0, log: req.log }).then((result) => {
        send(req, reply, format, result, nocache === 0 ? sizes : undefined)
      })
    },
  )

  let serializeJson: ((plan: PlanJson) => string) | undefined
  /** `sizes`: the request's, when it may be answered from the cache next time (no `nocache`). */
  function send(
    req: FastifyRequest,
    reply: FastifyReply,
    format: string,
    result: PlanResult,
    sizes: PlanResult['plan']['sizes'] | undefined,
  ): void {
    // the 200 schema's serializer writes the bytes, once per cached cut and snapshot state
    serializeJson ??= reply.getSerializationFunction('200', 'application/json') as (plan: PlanJson) => string
    if (!serializeJson) throw new Error('GET /plan has no serializer for its 200 application/json schema')
    const response = responses(result, serializeJson)
    const shownFormat = format.length > 40 ? format.slice(0, 40) : format
    reply.header('cache-control', PLAN_CACHE_CONTROL)
    const markdown = format === 'md'
    const notModified = !markdown && matchesEtag(req.headers['if-none-match'], response.etag)
    logPlanServed(response, {
      reqId: req.id,
      client: req.ip,
      cache: result.cache,
      format: shownFormat,
      seconds: reply.elapsedTime / 1000,
      status: notModified ? 304 : 200,
    })
    if (markdown) {
      const { regime, market } = result.snapshot
      reply.type('text/markdown; charset=utf-8').send(renderPlanMarkdown(result.plan.body, regime, market))
      return
    }
    reply.header('etag', response.etag)
    if (notModified) reply.code(304).send()
    else reply.type('application/json; charset=utf-8').send(response.bytes)
    if (sizes && lane && req.method === 'GET') {
      lane.learn(
        req.raw.url ?? req.url,
        { date: (req.query as { date?: string }).date, sizes, format: shownFormat },
        serializeJson,
      )
    }
  }

  app.post(
    '/plan/refresh',
    {
      schema: {
        operationId: 'refreshPlan',
        tags: ['plan'],
        summary: 'Regenerate the Markdown plan file for a date and clear the plan cache',
        description:
          'Writes `plans/<date>.md` in the plan data directory from a fresh plan at default sizes (the latest date when none is given); on success the whole in-process plan cache is cleared.',
        querystring: Type.Object({ date: Type.Optional(IsoDateSchema) }),
        response: {
          200: json(Ref('PlanRefresh'), 'The file was regenerated; the whole plan cache was cleared'),
          404: errorResponse('Generation aborts: no tier rows for the date, or an empty tier table'),
          422: errorResponse('A parameter is malformed or repeated'),
          503: errorResponse('The store is unreachable and the day has no usable snapshot'),
          ...edgeResponses,
          413: errorResponse('A request body over 1 MB (the operation reads none)'),
          415: errorResponse('A request body of a media type other than JSON (the operation reads none)'),
        },
      },
    },
    async (req) => ({ ok: true as const, file: await plans.refreshPlanFile(req.query.date) }),
  )
}

export default planRoutes
