import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { MAX_CODES, requestedCodes } from '../../domain/code-list.js'
import type { LogicStateService } from '../../services/logic-state.service.js'
import { CodesQuery, errorResponse, IsoDateSchema, json, Ref } from '../schemas/common.schema.js'
import { edgeResponses } from '../schemas/responses.js'

export interface LogicStateRouteDeps {
  readonly logicStates: Pick<LogicStateService, 'lookupBody'>
}

const logicStateRoutes: FastifyPluginAsyncTypebox<LogicStateRouteDeps> = async (app, { logicStates }) => {
  app.get(
    '/logic_state',
    {
      schema: {
        operationId: 'getLogicStates',
        tags: ['lookup'],
        summary: 'Per-code logic states with valuation and company review',
        description: `\`codes\` takes precedence over \`code\`; codes normalising to one code are merged (first input kept). At most ${MAX_CODES} codes per request (more: 422).`,
        querystring: Type.Object({ ...CodesQuery, date: Type.Optional(IsoDateSchema) }),
        response: {
          200: json(Ref('LogicStateList'), 'Valid entries first, then error entries'),
          ...edgeResponses,
          400: errorResponse('No `codes` or `code` after trimming, or a malformed request'),
          404: errorResponse('No date given and the tier table is empty'),
          422: errorResponse(`A parameter is malformed or repeated, or more than ${MAX_CODES} codes`),
          500: errorResponse('Computing logic states failed; `detail` carries the failure text'),
        },
      },
      serializerCompiler: () => (data) => JSON.stringify(data),
    },
    async (req, reply) => {
      // the body is spliced from JSON kept per code and date (see logic-state.service), not stringified here
      const body = await logicStates.lookupBody({ codes: requestedCodes(req.query), date: req.query.date })
      return reply.type('application/json; charset=utf-8').send(body)
    },
  )
}

export default logicStateRoutes
