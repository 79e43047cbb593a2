import { Type } from 'typebox'
import { Nullable, Ref, ResponseDate } from './common.schema.js'
import { EXAMPLES } from './examples.js'

const Scenario = Type.Object({
  value: Type.Number({ description: 'value per share, yuan' }),
  mos: Type.Number({ description: 'margin of safety 1 - price/value, a fraction' }),
})

export const ValuationSchema = Type.Object(
  {
    method: Type.Union([Type.Literal('pe_band'), Type.Literal('pb_roe')]),
    price: Type.Number({ description: 'close on the date, yuan' }),
    scenarios: Type.Object({ bear: Scenario, neutral: Scenario, bull: Scenario }),
    reference_target: Type.Number({ description: 'the neutral value: a display reference, never a trigger' }),
    inputs: Type.Record(Type.String(), Nullable(Type.Union([Type.Number(), Type.String()])), {
      description: 'the figures the scenarios were computed from',
    }),
    notes: Type.Array(Type.String()),
  },
  {
    $id: 'Valuation',
    description: 'Safety-margin valuation with three scenarios',
    examples: [EXAMPLES.logicStateList.states[0]?.valuation],
  },
)

export const CompanyReviewSchema = Type.Object(
  {
    grade: Type.Union([Type.Literal('A'), Type.Literal('B'), Type.Literal('C'), Type.Literal('D')]),
    score: Type.Number(),
    report_period: Type.String({ description: 'end date of the financial report used' }),
    metrics: Type.Record(Type.String(), Nullable(Type.Number())),
    invalidation: Type.Array(
      Type.Object({
        id: Type.String(),
        metric: Type.String(),
        op: Type.Union([Type.Literal('<'), Type.Literal('>')]),
        threshold: Type.Number(),
        current: Nullable(Type.Number()),
        triggered: Type.Boolean(),
      }),
    ),
    summary: Type.String(),
  },
  {
    $id: 'CompanyReview',
    description: 'Company depth review: quality grade and invalidation conditions',
    examples: [EXAMPLES.logicStateList.states[0]?.company_review],
  },
)

const LogicStateName = Type.Union([
  Type.Literal('forming'),
  Type.Literal('confirmed'),
  Type.Literal('weakening'),
  Type.Literal('broken'),
])

export const LogicStateEntrySchema = Type.Object(
  {
    input: Type.String({ description: 'the first input sent for this normalised code' }),
    code: Type.String(),
    date: ResponseDate('data date'),
    source: Type.Union([Type.Literal('daily'), Type.Literal('computed')], {
      description: 'daily: the row the morning plan stored; computed: stepped at request time from tier scores',
    }),
    verdict: Nullable(Type.String({ description: 'stored verdict (daily only)' })),
    card_rank: Nullable(Type.Integer()),
    plan_version: Nullable(Type.String()),
    code_version: Nullable(Type.String({ description: 'code version that wrote the daily row' })),
    logic_state: Nullable(LogicStateName),
    score: Nullable(Type.Number({ description: "the day's tier score; null when absent that day" })),
    score_ema: Nullable(Type.Number()),
    score_pct: Type.Optional(
      Nullable(Type.Number({ description: "percentile 0..100 of the score in the day's tier table (PLAN_VERSION 2)" })),
    ),
    pct_ema: Type.Optional(
      Nullable(Type.Number({ description: 'EMA of the score percentile; the state bands are set on it' })),
    ),
    state_since: Nullable(ResponseDate()),
    days_in_state: Nullable(Type.Integer()),
    state_rule: Nullable(Type.String({ description: 'the rule that produced the state' })),
    note: Nullable(Type.String({ description: 'how a computed entry was obtained, or why it has no state' })),
    valuation: Type.Optional(Nullable(Ref('Valuation'))),
    valuation_text: Type.Optional(Nullable(Type.String())),
    company_review: Type.Optional(Nullable(Ref('CompanyReview'))),
    company_review_text: Type.Optional(Nullable(Type.String())),
  },
  {
    $id: 'LogicStateEntry',
    description: 'A logic state; a valuation or review key is absent from every entry when its group failed',
    examples: EXAMPLES.logicStateList.states.slice(0, 2),
  },
)

export const LogicStateListSchema = Type.Object(
  {
    date: ResponseDate('data date used'),
    count: Type.Integer({ description: 'valid entries plus error entries' }),
    states: Type.Array(Type.Union([Ref('LogicStateEntry'), Ref('CodeError')]), {
      description: 'valid entries first, then error entries',
    }),
  },
  { $id: 'LogicStateList', description: 'Logic states for the codes sent', examples: [EXAMPLES.logicStateList] },
)
