import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { errorResponse, json, Ref } from '../schemas/common.schema.js'
import { edgeResponses } from '../schemas/responses.js'

export interface DatesDeps {
  readonly listDates: (limit: number) => Promise<string[]>
}

const datesRoutes: FastifyPluginAsyncTypebox<DatesDeps> = async (app, deps) => {
  app.get(
    '/plan/dates',
    {
      schema: {
        operationId: 'listPlanDates',
        tags: ['plan'],
        summary: 'Distinct trade dates of the tier score table, newest first',
        description: 'At most `limit` dates (default 30), newest first; `{dates: []}` before the first build.',
        querystring: Type.Object({
          limit: Type.Optional(
            Type.Integer({ minimum: 1, maximum: 3650, default: 30, description: 'at most this many dates' }),
          ),
        }),
        response: {
          200: json(Ref('PlanDates'), 'The dates, newest first; `{dates: []}` with no rows'),
          422: errorResponse('`limit` is not a decimal integer in 1..3650, or is repeated'),
          503: errorResponse('The store is unreachable'),
          ...edgeResponses,
        },
      },
    },
    async (req) => ({ dates: await deps.listDates(req.query.limit ?? 30) }),
  )
}

export default datesRoutes
