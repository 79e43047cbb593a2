import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { MAX_CODES, requestedCodes } from '../../domain/code-list.js'
import type { StockService } from '../../services/stock.service.js'
import { CodesQuery, errorResponse, IsoDateSchema, json, Ref } from '../schemas/common.schema.js'
import { edgeResponses } from '../schemas/responses.js'

export interface StockRouteDeps {
  readonly stocks: StockService
}

/** `GET /stock/{code}` (the viewer's stock panel) and `GET /stocks` (fundamentals and yesterday's rank per row). */
const stockRoutes: FastifyPluginAsyncTypebox<StockRouteDeps> = async (app, { stocks }) => {
  app.get(
    '/stock/:code',
    {
      schema: {
        operationId: 'getStock',
        tags: ['lookup'],
        summary: "A stock's chart (forward-adjusted candles, volume, MA20/MA60), fundamentals and plan marks",
        description:
          'Bars up to the data date (default: the latest tier date), suspended days left out, prices forward-adjusted (前复权) to the last bar; the moving averages use the stored history before the window too. `marks` are the morning plans’ stored rows (decision, logic state and its rule) over the same dates.',
        params: Type.Object({ code: Type.String({ description: 'a code: 600519.SH, SH600519 or 600519' }) }),
        querystring: Type.Object({
          date: Type.Optional(IsoDateSchema),
          days: Type.Optional(
            Type.Integer({ minimum: 20, maximum: 500, default: 120, description: 'traded days shown, 20..500' }),
          ),
        }),
        response: {
          200: json(Ref('Stock'), 'Chart data, fundamentals and marks'),
          ...edgeResponses,
          404: errorResponse('The code is not in the store, or no date given and the tier table is empty'),
          422: errorResponse('Not a stock code, or a parameter malformed, out of range or repeated'),
          503: errorResponse('The store is unreachable'),
        },
      },
    },
    (req) => stocks.panel({ code: req.params.code, date: req.query.date, days: req.query.days ?? 120 }),
  )
  app.get(
    '/stocks',
    {
      schema: {
        operationId: 'getStockFacts',
        tags: ['lookup'],
        summary: 'Fundamentals (market value, PE/PB TTM, industry) and the previous day’s rank of each code',
        description: `\`codes\` takes precedence over \`code\`; codes normalising to one code are merged (first input kept). At most ${MAX_CODES} codes per request (more: 422).`,
        querystring: Type.Object({ ...CodesQuery, date: Type.Optional(IsoDateSchema) }),
        response: {
          200: json(Ref('StockFactsList'), 'Valid entries first, then error entries'),
          ...edgeResponses,
          400: errorResponse('No `codes` or `code` after trimming, or a malformed request'),
          404: errorResponse('No date given and the tier table is empty'),
          422: errorResponse(`A parameter is malformed or repeated, or more than ${MAX_CODES} codes`),
          503: errorResponse('The store is unreachable'),
        },
      },
    },
    (req) => stocks.facts({ codes: requestedCodes(req.query), date: req.query.date }),
  )
}

export default stockRoutes
