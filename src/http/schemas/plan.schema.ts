import { Type } from 'typebox'
import { Nullable, Ref, ResponseDate, ScoreDetailFields } from './common.schema.js'
import { EXAMPLES } from './examples.js'

const Decision = Type.Union([Type.Literal('main'), Type.Literal('observe')])
const TierName = Type.Union([Type.Literal('main'), Type.Literal('observe'), Type.Literal('reject')])

export const EvidenceEdgeSchema = Type.Object(
  {
    theme: Type.String(),
    segment: Type.String(),
    weight: Type.Number({ minimum: 0, maximum: 1, description: 'edge weight 0..1' }),
    evidence: Type.String({ description: 'why the stock belongs to the segment' }),
    track: Type.String(),
  },
  {
    $id: 'EvidenceEdge',
    description: 'One edge of the stock graph: theme -> segment -> stock',
    examples: [EXAMPLES.plan.main[0]?.graph_evidence[0]],
  },
)

/**
 * A `main` or `observe` row: the tier row's fields with the verdict fields joined in. New row fields (score
 * components, flags) are one more property here.
 */
export const PlanRowSchema = Type.Object(
  {
    code: Type.String({ description: 'normalised code, e.g. 600519.SH' }),
    name: Type.String(),
    rank: Type.Integer({ minimum: 1, description: "rank in the day's tier table, 1 = best score" }),
    score: Type.Number({ description: 'tier score 0..100' }),
    tier: TierName,
    theme: Nullable(Type.String()),
    segment: Nullable(Type.String()),
    track: Nullable(Type.String()),
    upside: Nullable(
      Type.Number({ description: 'neutral valuation / close - 1, a fraction; null without a valuation' }),
    ),
    heat: Nullable(Type.Number({ description: 'theme heat 0..100' })),
    transmission: Nullable(Type.Number({ description: 'heat carried from theme to stock, 0..1' })),
    graph_evidence: Type.Array(Ref('EvidenceEdge')),
    logic_state: Nullable(Type.String({ description: 'forming, confirmed, weakening or broken; null when unknown' })),
    logic_days: Nullable(Type.Integer({ minimum: 1, description: 'days in the logic state; null when unknown' })),
    close: Type.Optional(Nullable(Type.Number({ description: "the day's close, yuan" }))),
    pct_chg: Type.Optional(Nullable(Type.Number({ description: 'close / previous close - 1, a fraction' }))),
    turnover_rate: Type.Optional(
      Nullable(Type.Number({ description: 'shares traded as a fraction of the float (0.05 = 5%)' })),
    ),
    amount: Type.Optional(Nullable(Type.Number({ description: 'traded value, yuan' }))),
    decision: Decision,
    card_rank: Type.Integer({ minimum: 1, description: 'position on the verdict cards' }),
    verdict_text: Type.String({ description: 'one line; `stockplan reconcile` prints the same' }),
    ...ScoreDetailFields,
  },
  { $id: 'PlanRow', description: 'A row of `main` or `observe`', examples: [EXAMPLES.plan.main[0]] },
)

export const RegimeSchema = Type.Object(
  {
    status: Type.Union(
      [Type.Literal('strong'), Type.Literal('neutral'), Type.Literal('weak'), Type.Literal('unknown')],
      { description: "`unknown` when the day's snapshot has no environment section" },
    ),
    weak_day: Nullable(Type.Boolean()),
    source: Type.String({ description: 'explanatory text' }),
  },
  { $id: 'Regime', description: "The day's market environment, from its snapshot", examples: [EXAMPLES.regime] },
)

const Signal = Type.Union(
  [Type.Literal('positive'), Type.Literal('neutral'), Type.Literal('negative'), Type.Literal('unknown')],
  { description: 'what the item says about the market' },
)

export const MarketSchema = Type.Object(
  {
    breadth: Type.Optional(
      Type.Object({
        signal: Signal,
        up: Nullable(Type.Integer()),
        down: Nullable(Type.Integer()),
        flat: Nullable(Type.Integer()),
        up_ratio: Nullable(Type.Number({ description: 'fraction of traded stocks that closed up' })),
      }),
    ),
    limits: Type.Optional(
      Type.Object({ signal: Signal, limit_up: Nullable(Type.Integer()), limit_down: Nullable(Type.Integer()) }),
    ),
    turnover: Type.Optional(
      Type.Object({
        signal: Signal,
        amount: Nullable(Type.Number({ description: 'whole-market amount, yuan' })),
        ma20: Nullable(Type.Number({ description: '20-day mean amount, yuan' })),
        ratio: Nullable(Type.Number()),
      }),
    ),
    trend: Type.Optional(
      Type.Object({
        signal: Signal,
        index: Nullable(Type.String()),
        close: Nullable(Type.Number()),
        ma20: Nullable(Type.Number()),
        pct_above_ma20: Nullable(Type.Number({ description: 'fraction of stocks above their MA20' })),
      }),
    ),
  },
  {
    $id: 'Market',
    description: "The market part of the environment section, from the day's snapshot; `{}` when it is missing",
    examples: [EXAMPLES.market, {}],
  },
)

const Candidate = Type.Object({
  code: Type.String(),
  name: Type.String(),
  rank: Type.Integer(),
  score: Type.Number(),
  tier: TierName,
  theme: Nullable(Type.String()),
})

const WatchItem = Type.Object({
  code: Type.String(),
  name: Type.String(),
  reason: Type.String({ description: "why the code left today's main list (a drop reason, or `observe`)" }),
  text: Type.String(),
})

const SegmentPointed = Type.Object({
  theme: Type.String(),
  segment: Type.String(),
  count: Type.Integer(),
  codes: Type.Array(Type.String()),
  heat: Nullable(Type.Number()),
})

export const PlanSchema = Type.Object(
  {
    date: ResponseDate('data date of the plan'),
    main: Type.Array(Ref('PlanRow'), { description: 'main list, trimmed by top and theme_cap' }),
    observe: Type.Array(Ref('PlanRow'), { description: 'observation tier, trimmed by obs_top' }),
    generated_at: Type.String({ format: 'date-time' }),
    plan_version: Type.String(),
    regime: Ref('Regime'),
    card_counts: Type.Record(Type.String(), Type.Integer(), {
      description: 'rows per decision and per drop reason',
    }),
    candidates: Type.Array(Candidate, { description: 'screened main- and observe-tier rows' }),
    watch: Type.Array(WatchItem, { description: "the previous data date's main codes that are not in today's" }),
    segments_pointed: Type.Array(SegmentPointed),
    snapshot: Type.Union([Type.Literal('present'), Type.Literal('missing')]),
    market: Ref('Market'),
    plan_source: Type.Union([Type.Literal('snapshot'), Type.Literal('live')]),
    main_empty: Type.Optional(
      Nullable(Type.String({ description: 'why main is empty today, in words; null when it is not' })),
    ),
  },
  { $id: 'Plan', description: 'The plan (JSON form)', examples: [EXAMPLES.plan] },
)

export const PlanDatesSchema = Type.Object(
  { dates: Type.Array(ResponseDate(), { description: 'newest first' }) },
  { $id: 'PlanDates', description: 'Distinct trade dates of the tier score table', examples: [EXAMPLES.planDates] },
)

export const PlanRefreshSchema = Type.Object(
  {
    ok: Type.Literal(true),
    file: Type.String({ description: 'path of the regenerated Markdown plan file' }),
  },
  { $id: 'PlanRefresh', description: 'The regenerated plan file', examples: [EXAMPLES.planRefresh] },
)

export const PlanMarkdownSchema = Type.String({ description: 'the Markdown rendering of the plan' })
