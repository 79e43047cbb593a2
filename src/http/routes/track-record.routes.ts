import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { DEFAULT_BENCHMARK } from '../../domain/outcomes.js'
import { unprocessable } from '../../errors.js'
import { TrackRecordQueryError, type TrackRecordService } from '../../services/track-record.service.js'
import { ErrorSchema, IsoDateSchema } from '../schemas/common.schema.js'

export interface TrackRecordDeps {
  readonly trackRecord: TrackRecordService
}

/** `GET /plan/track_record`: the evaluator's figures (IC, quintiles, groups, `main` as a portfolio) as JSON. */
const trackRecordRoutes: FastifyPluginAsyncTypebox<TrackRecordDeps> = async (app, deps) => {
  app.get(
    '/plan/track_record',
    {
      schema: {
        summary:
          'Track record of the published plans: rank IC, quintiles, by decision/logic state/regime/theme, main vs benchmark',
        querystring: Type.Object({
          from: Type.Optional(IsoDateSchema),
          to: Type.Optional(IsoDateSchema),
          horizon: Type.Integer({ minimum: 1, maximum: 20, default: 5, description: 'trading days: 1, 5 or 20' }),
          benchmark: Type.String({
            pattern: '^[0-9A-Za-z]{6}\\.(SH|SZ|BJ|CSI)$',
            default: DEFAULT_BENCHMARK,
            description: 'index code in index_bars',
          }),
        }),
        response: {
          200: Type.Object({}, { additionalProperties: true, description: 'see README "Track record"' }),
          422: ErrorSchema,
          500: ErrorSchema,
        },
      },
    },
    async (req) => {
      try {
        return await deps.trackRecord.evaluate(req.query)
      } catch (err) {
        if (err instanceof TrackRecordQueryError) throw unprocessable(err.message)
        throw err
      }
    },
  )
}

export default trackRecordRoutes
