import { type TSchema, Type } from 'typebox'
import { Nullable, ResponseDate } from './common.schema.js'

const num = Nullable(Type.Number())
const closed = <T extends Parameters<typeof Type.Object>[0]>(props: T, description?: string) =>
  Type.Object(props, { additionalProperties: false, ...(description ? { description } : {}) })

const SeriesSummary = {
  n: Type.Integer({ description: 'days with a value' }),
  mean: num,
  sd: num,
  t: Nullable(Type.Number({ description: 'Hansen-Hodrick t of the mean (h-1 lags: the h-day windows overlap)' })),
}
const IcSummary = closed({ ...SeriesSummary, icir: num }, 'Rank IC over the days: mean, sd, Hansen-Hodrick t, ICIR')
const byName = (value: TSchema, description: string) => Type.Object({}, { additionalProperties: value, description })

const GroupStat = closed({
  key: Type.String(),
  count: Type.Integer(),
  mean_excess: num,
  hit_rate: Nullable(Type.Number({ description: 'share of rows with a positive excess' })),
  t: num,
})

const PortfolioDay = closed({
  date: ResponseDate('plan date T'),
  names: Type.Integer({ description: 'tradable main names held' }),
  ret: num,
  bench: num,
  excess: num,
  turnover: Type.Number(),
  cost: Type.Number(),
  net_excess: num,
  cum_excess: Type.Number(),
  cum_main: Type.Number(),
  cum_bench: Type.Number(),
})

const Mean = closed({
  mean: Nullable(Type.Number({ description: 'mean daily excess' })),
  t: Nullable(Type.Number({ description: 'Newey-West t of the mean (Bartlett weights)' })),
})
const PeriodExcess = closed({
  period: Type.String({ description: 'YYYY-MM or YYYY-Qn' }),
  excess: Type.Number({ description: "the book's net value over the baseline's across the period, less 1" }),
})
const BookSummary = closed({
  days: Type.Integer({ description: 'trading days with a baseline return' }),
  gross_excess: Mean,
  net_excess: Mean,
  net_ir: Nullable(Type.Number({ description: 'annualised (√252) net daily excess over its sd; null under 20 days' })),
  cumulative_net_excess: num,
  annualised_net_excess: num,
  max_drawdown: Nullable(Type.Number({ description: 'largest fall of the net value relative to the baseline' })),
  worst_month: Nullable(PeriodExcess),
  quarters: Type.Array(PeriodExcess),
})
const ExposureZ = closed(
  { size: num, beta: num, volatility: num, reversal: num },
  'time-averaged mean z-score of the target names among the investable universe: size = log 20-day mean traded value, beta = 60-day beta to the benchmark, volatility = 20-day sd of daily returns, reversal = 5-day return',
)
const FactorFit = Nullable(
  closed(
    {
      days: Type.Integer({ description: 'days with the excess and both factors' }),
      alpha: Type.Number({ description: 'daily excess not explained by the factors (the intercept)' }),
      alpha_t: Nullable(Type.Number({ description: 'Newey-West t of the alpha' })),
      loadings: Type.Array(
        closed({
          name: Type.String({ description: '`size` or `reversal`' }),
          beta: Type.Number(),
          t: Nullable(Type.Number({ description: 'Newey-West t' })),
        }),
      ),
      r2: Type.Number(),
    },
    'OLS of the daily excess over the universe on the size and reversal factors; null with too few days',
  ),
)
const BookAttribution = closed(
  {
    days: Type.Integer({ description: 'days with a universe return' }),
    factors: Type.String({ description: 'how the factors are built' }),
    gross: FactorFit,
    net: FactorFit,
    matched: closed(
      { gross: Mean, net: Mean },
      "the book's daily return less a benchmark matched on traded value: each target name's traded-value decile of the universe",
    ),
    deflated_sharpe: Nullable(
      closed(
        {
          attempts: Type.Integer({ description: 'rules and signals tried on the development set (research log)' }),
          days: Type.Integer(),
          net_ir: Type.Number({ description: 'annualised (√252) IR of the net excess over the universe' }),
          lucky_best_ir: Type.Number({ description: 'the IR the best of `attempts` skill-less tries would show' }),
          probability: Type.Number({ description: 'P(true IR above the lucky best): above 0.95 is the usual bar' }),
        },
        'the deflated Sharpe ratio (Bailey and López de Prado) of the net excess; null under 20 days',
      ),
    ),
  },
  "the headline size's excess net of what it is made of (issue 47)",
)
const CostScenario = closed({
  impact: Type.Number({ description: 'Y of the square-root impact law' }),
  adv_cap: Type.Number({ description: "largest order as a share of the stock's 20-day mean traded value" }),
  net_excess: Mean,
  net_ir: num,
  turnover: num,
  cost_drag: num,
})
const BookReport = closed(
  {
    depth: Type.Integer({ description: 'names of `main` the book targets, in rank order' }),
    from: Nullable(ResponseDate('first trading day of the book')),
    to: Nullable(ResponseDate('last trading day of the book')),
    headline_size: Type.Number({ description: 'book size (CNY) of `days`' }),
    benchmark: closed({ code: Type.String(), note: Type.String({ description: 'a price index: no dividends' }) }),
    universe: closed({ rule: Type.String({ description: 'the headline baseline: what it holds and how' }) }),
    costs: closed({
      commission: Type.Number({ description: 'per side, fraction of traded value' }),
      stampDuty: Type.Array(closed({ from: Type.String(), rate: Type.Number() }), {
        description: 'sell-side stamp duty in force from each trade date',
      }),
      halfSpread: Type.Number({ description: 'paid on every trade, fraction of traded value' }),
      impact: Type.Number({ description: 'Y of impact = Y × 20-day volatility × √(order / 20-day traded value)' }),
      advCap: Type.Number({ description: "largest order as a share of the stock's 20-day mean traded value" }),
      fallbackVol: Type.Number({ description: 'daily volatility assumed without 20 days of history' }),
    }),
    sizes: Type.Array(
      closed({
        size: Type.Number({ description: 'book size at the start, CNY' }),
        turnover: Nullable(Type.Number({ description: 'mean one-sided daily turnover, fraction of NAV' })),
        cost_drag: Nullable(Type.Number({ description: 'costs a year, fraction of NAV' })),
        mean_cash: num,
        days_missing: Type.Integer({ description: 'days the book could not hold a target name' }),
        days_carrying: Type.Integer({ description: 'days the book still held a name that had left `main`' }),
        universe: BookSummary,
        benchmark: BookSummary,
      }),
      { description: 'the book at 20, 100 and 300 M CNY (capacity): against the universe and the benchmark' },
    ),
    days: Type.Array(
      closed({
        date: ResponseDate('trading day D: traded at its open, marked at its close'),
        plan_date: ResponseDate('plan day whose `main` was the target'),
        gross: Type.Number(),
        net: Type.Number(),
        cost: Type.Number(),
        turnover: Type.Number(),
        holdings: Type.Integer(),
        cash: Type.Number(),
        universe: num,
        benchmark: num,
        cum_net_excess: Type.Number({ description: "the book's net value over the universe's, 1 at the start" }),
        cum_net_excess_benchmark: Type.Number({ description: "the book's net value over the benchmark's" }),
      }),
      { description: 'daily P&L at the headline size' },
    ),
    exposures: closed({
      days: Type.Integer(),
      mean_z: ExposureZ,
      industries: Type.Array(closed({ industry: Type.String(), book: Type.Number(), universe: Type.Number() }), {
        description: 'time-averaged share of names per industry, largest gaps first',
      }),
      note: Type.String(),
    }),
    attribution: BookAttribution,
    cost_sensitivity: Type.Array(CostScenario, {
      description: 'the book at the headline size under impact 0.5 / 0.75 / 1 × participation cap 5% / 10%',
    }),
  },
  'The main book as a PM holds it: each plan day\'s `main` (first `depth` names) in equal weights, traded at the next open with limit and suspension rules, after commission, stamp duty, spread and impact (README "Track record")',
)

export const TrackRecordSchema = Type.Object(
  {
    benchmark: Type.String({ description: 'index code the excess is measured against' }),
    weights: Type.Array(
      closed({
        date: ResponseDate('build date'),
        weights: byName(Type.Number(), 'walk-forward weight of each signal (sign included) the build used'),
      }),
      { description: 'the signal weights each build in the range used, oldest first (PLAN_VERSION 3)' },
    ),
    book: BookReport,
    horizon: Type.Integer({ description: 'trading days from the T+1 open to the T+h close' }),
    from: Nullable(ResponseDate('first plan date evaluated')),
    to: Nullable(ResponseDate('last plan date evaluated')),
    days: Type.Integer(),
    rows: Type.Integer(),
    untradable: byName(Type.Integer(), 'untradable entries left out of every return figure, by reason'),
    ic: closed({
      score: IcSummary,
      components: byName(
        IcSummary,
        'IC of each signal (PLAN_VERSION 3, stored with the outcomes) or score component (older plans)',
      ),
      daily: Type.Array(
        closed({
          date: ResponseDate(),
          score: num,
          components: byName(num, 'component rank IC of the day'),
        }),
      ),
    }),
    quintiles: closed({
      mean_ret: Type.Array(num, { description: 'mean return of each score quintile, lowest first' }),
      top_minus_bottom: closed(SeriesSummary),
    }),
    groups: closed({
      decision: Type.Array(GroupStat),
      logic_state: Type.Array(GroupStat),
      regime: Type.Array(GroupStat),
      theme: Type.Array(GroupStat),
    }),
    portfolio: closed({
      days: Type.Array(PortfolioDay),
      cum_excess: num,
      max_drawdown: num,
      ir: Nullable(
        Type.Number({
          description:
            'annualised information ratio on non-overlapping h-day windows (mean over the h offsets); null under 20 invested days',
        }),
      ),
      mean_turnover: Nullable(
        Type.Number({
          description: 'share of a cohort bought new against the cohort h plan days back, whose capital it takes',
        }),
      ),
      invested_days: Type.Integer(),
      costs: closed({
        commission: Type.Number({ description: 'per side, fraction of traded value' }),
        stampDuty: Type.Array(closed({ from: Type.String(), rate: Type.Number() }), {
          description: 'sell-side stamp duty in force from each date',
        }),
      }),
    }),
  },
  {
    $id: 'TrackRecord',
    additionalProperties: false,
    description: 'Track record of the published plans over a date range and horizon (README "Track record")',
  },
)
