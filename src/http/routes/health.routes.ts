import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorText } from '../../errors.js'
import { withoutAddresses } from '../../redact.js'
import { json, Ref } from '../schemas/common.schema.js'
import { edgeResponses } from '../schemas/responses.js'

export interface HealthDeps {
  readonly latestPlanDate: () => Promise<string | undefined>
  readonly poolTop: number
  readonly poolMax: number
}

/** `ok` false with this text when the tier table is empty: there is no latest plan date to report. */
export const NO_PLAN_DATE_YET =
  "no plan date yet: the tier table is empty (run the day's build: `stockplan chain` or `stockplan build`)"

const healthRoutes: FastifyPluginAsyncTypebox<HealthDeps> = async (app, deps) => {
  app.get(
    '/health',
    {
      schema: {
        operationId: 'getHealth',
        tags: ['service'],
        summary: 'Liveness, latest plan date and pool depth',
        description:
          'Always 200. `ok: true` with `latest_plan_date` when the latest plan date could be read; `ok: false` with `error` when the store is unreachable or the tier table is still empty.',
        response: { 200: json(Ref('Health'), 'Liveness and the latest plan date'), ...edgeResponses },
      },
    },
    async () => {
      const pool = { pool_top: deps.poolTop, pool_max: deps.poolMax }
      try {
        const latest = await deps.latestPlanDate()
        if (latest === undefined) return { ok: false, error: NO_PLAN_DATE_YET, ...pool }
        return { ok: true, latest_plan_date: latest, ...pool }
      } catch (err) {
        return { ok: false, error: withoutAddresses(errorText(err)), ...pool }
      }
    },
  )
}

export default healthRoutes
