import { Type } from 'typebox'
import { Nullable, Ref, ResponseDate } from './common.schema.js'
import { EXAMPLES } from './examples.js'

const num = (description: string) => Nullable(Type.Number({ description }))

export const StockFundamentalsSchema = Type.Object(
  {
    date: ResponseDate('the daily-basics date used: the latest on or before the data date (within 30 days)'),
    total_mv: num('total market value, yuan'),
    circ_mv: num('circulating market value, yuan'),
    pe_ttm: num('price / earnings, trailing twelve months; null when loss-making'),
    pb: num('price / book'),
  },
  {
    $id: 'StockFundamentals',
    additionalProperties: false,
    description: "A stock's daily basics",
    examples: [EXAMPLES.stock.fundamentals],
  },
)

export const CandleSchema = Type.Object(
  {
    date: ResponseDate('trading day'),
    open: Type.Number({ description: 'forward-adjusted to the last bar, yuan' }),
    high: Type.Number(),
    low: Type.Number(),
    close: Type.Number(),
    volume: Type.Number({ description: 'shares traded' }),
    amount: Type.Number({ description: 'traded value, yuan' }),
    ma20: num('20-day mean of the adjusted close; null for the first 19 bars of the history'),
    ma60: num('60-day mean of the adjusted close'),
  },
  {
    $id: 'Candle',
    additionalProperties: false,
    description: 'One traded day (suspended days are left out)',
    examples: EXAMPLES.stock.bars,
  },
)

export const StockMarkSchema = Type.Object(
  {
    date: ResponseDate('plan date'),
    verdict: Type.String({ description: 'main, observe, reject or absent that morning' }),
    card_rank: Nullable(Type.Integer()),
    logic_state: Type.String(),
    state_rule: Type.String({ description: 'the rule that set the state, in words' }),
    state_since: ResponseDate('the day the state began; equal to date on a change'),
  },
  { $id: 'StockMark', additionalProperties: false, description: 'What the morning plan stored for the stock that day' },
)

export const StockSchema = Type.Object(
  {
    code: Type.String(),
    name: Nullable(Type.String()),
    industry: Nullable(Type.String()),
    date: ResponseDate('the data date the chart ends on'),
    adjustment: Type.Literal('forward', { description: '前复权: prices scaled to the last bar’s adjustment factor' }),
    bars: Type.Array(Ref('Candle'), { description: 'oldest first, at most `days`' }),
    fundamentals: Nullable(Ref('StockFundamentals')),
    marks: Type.Array(Ref('StockMark'), { description: 'the plan’s stored rows over the chart’s dates' }),
  },
  {
    $id: 'Stock',
    additionalProperties: false,
    description: "A stock's chart data, fundamentals and the plan's own marks (the viewer's stock panel)",
    examples: [EXAMPLES.stock],
  },
)

export const StockFactsSchema = Type.Object(
  {
    input: Type.String({ description: 'the first input sent for this normalised code' }),
    code: Type.String(),
    name: Nullable(Type.String()),
    industry: Nullable(Type.String()),
    fundamentals: Nullable(Ref('StockFundamentals')),
    previous: Nullable(
      Type.Object(
        {
          rank: Type.Integer(),
          score: Type.Number(),
          tier: Type.String(),
        },
        { additionalProperties: false, description: 'the row of the previous tier-table date; null when not scored' },
      ),
    ),
  },
  {
    $id: 'StockFacts',
    additionalProperties: false,
    description: 'Fundamentals and the previous day’s rank of a code',
    examples: EXAMPLES.stockFacts.stocks.slice(0, 1),
  },
)

export const StockFactsListSchema = Type.Object(
  {
    date: ResponseDate('data date used'),
    previous_date: Nullable(ResponseDate('the tier-table date before it')),
    stocks: Type.Array(Type.Union([Ref('StockFacts'), Ref('CodeError')]), {
      description: 'valid entries first (duplicates merged), then error entries',
    }),
  },
  {
    $id: 'StockFactsList',
    additionalProperties: false,
    description: 'Row facts for the codes sent',
    examples: [EXAMPLES.stockFacts],
  },
)
