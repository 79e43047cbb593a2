import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { MAX_CODES, requestedCodes } from '../../domain/code-list.js'
import type { LogicStateService } from '../../services/logic-state.service.js'
import { CodesQuery, ErrorSchema, IsoDateSchema } from '../schemas/common.schema.js'

export interface LogicStateRouteDeps {
  readonly logicStates: Pick<LogicStateService, 'lookupJson'>
}

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

const LogicStateEntry = Type.Object(
  {
    input: Type.String({ description: 'the first input sent for this normalised code' }),
    code: Type.String(),
    date: Type.String(),
    source: Type.Union([Type.Literal('daily'), Type.Literal('computed')], {
      description: 'daily: the row the morning plan stored; computed: stepped at request time from tier scores',
    }),
    verdict: Nullable(Type.String({ description: 'stored verdict (daily only)' })),
    card_rank: Nullable(Type.Integer()),
    plan_version: Nullable(Type.String()),
    code_version: Nullable(Type.String({ description: 'code version that wrote the daily row' })),
    logic_state: Nullable(
      Type.Union([
        Type.Literal('forming'),
        Type.Literal('confirmed'),
        Type.Literal('weakening'),
        Type.Literal('broken'),
      ]),
    ),
    score: Nullable(Type.Number({ description: "the day's tier score; null when absent that day" })),
    score_ema: Nullable(Type.Number()),
    state_since: Nullable(Type.String()),
    days_in_state: Nullable(Type.Integer()),
    state_rule: Nullable(Type.String({ description: 'the rule that produced the state' })),
    note: Nullable(Type.String({ description: 'how a computed entry was obtained, or why it has no state' })),
    valuation: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
    valuation_text: Type.Optional(Nullable(Type.String())),
    company_review: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
    company_review_text: Type.Optional(Nullable(Type.String())),
  },
  { description: 'A logic state; a valuation or review key is absent from every entry when its group failed' },
)

const CodeError = Type.Object(
  { input: Type.String(), error: Type.String() },
  { description: 'An unrecognised code form' },
)

const LogicStateList = Type.Object({
  date: Type.String(),
  count: Type.Integer({ description: 'valid entries plus error entries' }),
  states: Type.Array(Type.Union([LogicStateEntry, CodeError]), {
    description: 'valid entries first, then error entries',
  }),
})

const logicStateRoutes: FastifyPluginAsyncTypebox<LogicStateRouteDeps> = async (app, { logicStates }) => {
  app.get(
    '/logic_state',
    {
      schema: {
        summary: 'Per-code logic states with valuation and company review',
        description: `\`codes\` takes precedence over \`code\`; codes normalising to one code are merged (first input kept). At most ${MAX_CODES} codes per request (more: 422).`,
        querystring: Type.Object({ ...CodesQuery, date: Type.Optional(IsoDateSchema) }),
        response: { 200: LogicStateList, 400: ErrorSchema, 404: ErrorSchema, 422: ErrorSchema, 500: ErrorSchema },
      },
      serializerCompiler: () => (data) => JSON.stringify(data),
    },
    async (req, reply) => {
      // the body is spliced from JSON kept per code and date (see logic-state.service), not stringified here
      const json = await logicStates.lookupJson({ codes: requestedCodes(req.query), date: req.query.date })
      return reply.type('application/json; charset=utf-8').send(json as never)
    },
  )
}

export default logicStateRoutes
