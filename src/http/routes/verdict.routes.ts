import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { MAX_CODES, requestedCodes } from '../../domain/code-list.js'
import type { VerdictService } from '../../services/verdict.service.js'
import { CodesQuery, errorResponse, IsoDateSchema, json, Ref } from '../schemas/common.schema.js'
import { edgeResponses } from '../schemas/responses.js'

export interface VerdictRouteDeps {
  readonly verdicts: Pick<VerdictService, 'lookupBody'>
}

const verdictRoutes: FastifyPluginAsyncTypebox<VerdictRouteDeps> = async (app, { verdicts }) => {
  app.get(
    '/plan/verdict',
    {
      schema: {
        operationId: 'getVerdicts',
        tags: ['lookup'],
        summary: 'Per-code verdicts against the plan of a tier date at default sizes',
        description: `\`codes\` takes precedence over \`code\`; items are trimmed, empty items dropped, order and duplicates kept. At most ${MAX_CODES} codes per request (more: 422). One bad code becomes an error entry, never a failed batch.`,
        querystring: Type.Object({ ...CodesQuery, date: Type.Optional(IsoDateSchema) }),
        response: {
          200: json(Ref('VerdictList'), 'One entry per code sent'),
          ...edgeResponses,
          400: errorResponse('No `codes` or `code` after trimming, or a malformed request'),
          404: errorResponse('No date given and the tier table is empty, or no tier rows for the date given'),
          422: errorResponse(`A parameter is malformed or repeated, or more than ${MAX_CODES} codes`),
          500: errorResponse('Loading the tier data failed; `detail` carries the failure text'),
        },
      },
      // the schema documents the body; entries are written as built (no per-branch matching of the union)
      serializerCompiler: () => (data) => JSON.stringify(data),
    },
    async (req, reply) => {
      // the body is spliced from JSON kept per code and date (see verdict.service), not stringified here
      const body = await verdicts.lookupBody({ codes: requestedCodes(req.query), date: req.query.date })
      return reply.type('application/json; charset=utf-8').send(body)
    },
  )
}

export default verdictRoutes
