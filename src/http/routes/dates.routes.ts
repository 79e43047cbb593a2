import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ErrorSchema } from '../schemas/common.schema.js'

export interface DatesDeps {
  readonly listDates: (limit: number) => Promise<string[]>
}

const datesRoutes: FastifyPluginAsyncTypebox<DatesDeps> = async (app, deps) => {
  app.get(
    '/plan/dates',
    {
      schema: {
        summary: 'Distinct trade dates of the tier score table, newest first',
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 3650, default: 30 }) }),
        response: { 200: Type.Object({ dates: Type.Array(Type.String()) }), 422: ErrorSchema, 500: ErrorSchema },
      },
    },
    async (req) => ({ dates: await deps.listDates(req.query.limit) }),
  )
}

export default datesRoutes
