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
      ir: Nullable(Type.Number({ description: 'annualised information ratio; null under 20 invested days' })),
      mean_turnover: num,
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
