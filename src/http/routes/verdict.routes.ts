import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { MAX_CODES, requestedCodes } from '../../domain/code-list.js'
import type { VerdictService } from '../../services/verdict.service.js'
import { CodesQuery, ErrorSchema, IsoDateSchema } from '../schemas/common.schema.js'

export interface VerdictRouteDeps {
  readonly verdicts: Pick<VerdictService, 'lookup'>
}

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

const VerdictEntry = Type.Object(
  {
    input: Type.String({ description: 'the code exactly as sent' }),
    code: Type.String({ description: 'normalised code, e.g. 600519.SH' }),
    name: Nullable(Type.String()),
    decision: Type.Union([
      Type.Literal('main'),
      Type.Literal('observe'),
      Type.Literal('reject'),
      Type.Literal('absent'),
    ]),
    reason: Nullable(
      Type.String({
        description:
          'why not selected: held, b_share, suspended, st, new_listing, illiquid, theme_cap, beyond_top, beyond_obs_top, tier_reject, not_in_tier_table',
      }),
    ),
    verdict_text: Type.String({ description: 'one line; `stockplan reconcile` prints the same' }),
    score: Nullable(Type.Number()),
    rank: Nullable(Type.Integer()),
    tier: Nullable(Type.String()),
    upside: Nullable(Type.Number()),
    heat: Nullable(Type.Number()),
    transmission: Nullable(Type.Number()),
    track: Nullable(Type.String()),
    graph_evidence: Nullable(
      Type.Array(
        Type.Object({
          theme: Type.String(),
          segment: Type.String(),
          weight: Type.Number(),
          evidence: Type.String(),
          track: Type.String(),
        }),
      ),
    ),
    card_rank: Nullable(Type.Integer()),
  },
  { description: 'A verdict; detail fields are null for an absent code' },
)

const CodeError = Type.Object(
  { input: Type.String(), error: Type.String({ description: 'why the input is not a stock code' }) },
  { description: 'An unrecognised code form' },
)

const DataError = Type.Object(
  { input: Type.String(), code: Type.String(), error: Type.String({ description: '<ExceptionType>: <message>' }) },
  { description: 'A per-stock data failure' },
)

const VerdictList = Type.Object({
  date: Type.String({ description: 'tier date used' }),
  stale: Type.String({ description: "the date's build note on incomplete inputs; empty when none" }),
  count: Type.Integer(),
  verdicts: Type.Array(Type.Union([VerdictEntry, DataError, CodeError])),
})

const verdictRoutes: FastifyPluginAsyncTypebox<VerdictRouteDeps> = async (app, { verdicts }) => {
  app.get(
    '/plan/verdict',
    {
      schema: {
        summary: 'Per-code verdicts against the plan of a tier date at default sizes',
        description: `\`codes\` takes precedence over \`code\`; items are trimmed, empty items dropped, order and duplicates kept. At most ${MAX_CODES} codes per request (more: 422). One bad code becomes an error entry, never a failed batch.`,
        querystring: Type.Object({ ...CodesQuery, date: Type.Optional(IsoDateSchema) }),
        response: { 200: VerdictList, 400: ErrorSchema, 404: ErrorSchema, 422: ErrorSchema, 500: ErrorSchema },
      },
      // the schema documents the body; entries are written as built (no per-branch matching of the union)
      serializerCompiler: () => (data) => JSON.stringify(data),
    },
    async (req) => verdicts.lookup({ codes: requestedCodes(req.query), date: req.query.date }),
  )
}

export default verdictRoutes
