import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { DEFAULT_BENCHMARK } from '../../domain/outcomes.js'
import type { TrackRecordService } from '../../services/track-record.service.js'
import { errorResponse, IsoDateSchema, json, Ref } from '../schemas/common.schema.js'
import { edgeResponses } from '../schemas/responses.js'

export interface TrackRecordDeps {
  readonly trackRecord: TrackRecordService
}

/** `GET /plan/track_record`: the evaluator's figures (IC, quintiles, groups, `main` as a portfolio) as JSON. */
const trackRecordRoutes: FastifyPluginAsyncTypebox<TrackRecordDeps> = async (app, deps) => {
  app.get(
    '/plan/track_record',
    {
      schema: {
        operationId: 'getTrackRecord',
        tags: ['track record'],
        description:
          'Forward returns of what each plan published (entry at the T+1 open, exit at the T+h close, back-adjusted) against the benchmark: rank IC of the score and its components, quintiles, groups by decision, logic state, regime and theme, and `main` as an equal-weight portfolio after costs.',
        summary:
          'Track record of the published plans: rank IC, quintiles, by decision/logic state/regime/theme, main vs benchmark',
        querystring: Type.Object({
          from: Type.Optional(IsoDateSchema),
          to: Type.Optional(IsoDateSchema),
          horizon: Type.Optional(
            Type.Integer({ minimum: 1, maximum: 20, default: 5, description: 'trading days: 1, 5 or 20' }),
          ),
          benchmark: Type.Optional(
            Type.String({
              pattern: '^[0-9A-Za-z]{6}\\.(SH|SZ|BJ|CSI)$',
              default: DEFAULT_BENCHMARK,
              description: 'index code in index_bars',
            }),
          ),
        }),
        response: {
          200: json(Ref('TrackRecord'), 'The figures over the range (README "Track record")'),
          422: errorResponse('Bad date, reversed range, a horizon other than 1, 5 or 20, or an unknown benchmark'),
          503: errorResponse('The store is unreachable'),
          ...edgeResponses,
        },
      },
    },
    (req) =>
      deps.trackRecord.evaluate({
        ...req.query,
        horizon: req.query.horizon ?? 5,
        benchmark: req.query.benchmark ?? DEFAULT_BENCHMARK,
      }),
  )
}

export default trackRecordRoutes
