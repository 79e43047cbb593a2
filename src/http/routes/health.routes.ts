import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { errorText } from '../../errors.js'

export interface HealthDeps {
  readonly latestPlanDate: () => Promise<string | undefined>
  readonly poolTop: number
  readonly poolMax: number
}

const HealthSchema = Type.Object({
  ok: Type.Boolean(),
  latest_plan_date: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  error: Type.Optional(Type.String()),
  pool_top: Type.Integer(),
  pool_max: Type.Integer(),
})

const healthRoutes: FastifyPluginAsyncTypebox<HealthDeps> = async (app, deps) => {
  app.get(
    '/health',
    { schema: { summary: 'Liveness, latest plan date and pool depth', response: { 200: HealthSchema } } },
    async () => {
      try {
        const latest = await deps.latestPlanDate()
        return { ok: true, latest_plan_date: latest ?? null, pool_top: deps.poolTop, pool_max: deps.poolMax }
      } catch (err) {
        return { ok: false, error: errorText(err), pool_top: deps.poolTop, pool_max: deps.poolMax }
      }
    },
  )
}

export default healthRoutes
