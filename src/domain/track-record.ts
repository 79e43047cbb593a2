/**
 * The track record of published plans (issue 10): information coefficients, quintiles, group tables and the
 * `main` list as a portfolio, from stored outcomes. Pure: the caller loads the rows.
 *
 * Portfolio model: on each plan day T the tradable `main` names get equal weights, bought at the open of T+1 and
 * held h days. With h = 1 that is a portfolio rebalanced every plan day and compounded exactly; with h > 1 the
 * h overlapping cohorts each hold 1/h of the capital, so day T adds (net excess of T's cohort) / h to the curve.
 * A day without a tradable main name holds nothing and is left out of the curves and the IR.
 * Costs: every bought unit is later sold, so cost_T = bought share_T x (2 x commission + stamp duty in force on
 * the exit day). Turnover_T = the share of T's cohort bought new: against the cohort h plan days back, whose capital
 * it takes (each cohort is a new round trip; at h = 1 that is yesterday's list). The IR is on non-overlapping windows.
 */
import { type DayStats, type EvalDay, NO_KEY, summariseDay, type Tally } from './track-record-day.js'

export type { EvalDay, EvalRow } from './track-record-day.js'

import { maxDrawdown, type SeriesSummary, summarise } from './track-stats.js'

/**
 * The score components stored in `tier_scores` that get their own IC. One list: the storage layer selects these
 * columns and the tear sheet prints them in this order.
 */
export const SCORE_COMPONENTS = [
  'pts_momentum',
  'pts_trend',
  'pts_heat',
  'pts_upside',
  'pts_liquidity',
  'pts_quality',
] as const
export type ScoreComponent = (typeof SCORE_COMPONENTS)[number]

export interface CostModel {
  /** Broker commission per side, as a fraction of the traded value. */
  readonly commission: number
  /** Sell-side stamp duty by date: the rate in force from each date (ascending). */
  readonly stampDuty: ReadonlyArray<{ readonly from: string; readonly rate: number }>
}

/** A-share costs: commission 0.025% a side; stamp duty 0.1% on sales, halved to 0.05% from 2023-08-28. */
export const DEFAULT_COSTS: CostModel = Object.freeze({
  commission: 0.00025,
  stampDuty: Object.freeze([
    Object.freeze({ from: '0000-01-01', rate: 0.001 }),
    Object.freeze({ from: '2023-08-28', rate: 0.0005 }),
  ]),
})

export function stampDutyOn(costs: CostModel, date: string): number {
  let rate = 0
  for (const step of costs.stampDuty) if (step.from <= date) rate = step.rate
  return rate
}

export function roundTripCost(costs: CostModel, sellDate: string): number {
  return 2 * costs.commission + stampDutyOn(costs, sellDate)
}

/** The benchmark's return over a window, bought at the entry day's open and sold at the exit day's close. */
export function benchmarkReturn(
  bars: ReadonlyMap<string, { readonly open: number; readonly close: number }>,
  entryDate: string,
  exitDate: string,
): number | null {
  const open = bars.get(entryDate)?.open
  const close = bars.get(exitDate)?.close
  return open && close !== undefined ? close / open - 1 : null
}

export interface DailyIc {
  readonly date: string
  readonly score: number | null
  readonly components: Record<string, number | null>
}

export interface GroupStat {
  readonly key: string
  readonly count: number
  readonly mean_excess: number | null
  readonly hit_rate: number | null
  readonly t: number | null
}

export interface PortfolioDay {
  readonly date: string
  readonly names: number
  readonly ret: number | null
  readonly bench: number | null
  readonly excess: number | null
  readonly turnover: number
  readonly cost: number
  readonly net_excess: number | null
  /** Value of 1 invested in the net excess (main minus benchmark after costs) at the end of the day's step. */
  readonly cum_excess: number
  /** Value of 1 in the main list after costs, and of 1 in the benchmark, on the same 1/h steps. */
  readonly cum_main: number
  readonly cum_bench: number
}

export interface TrackRecord {
  readonly horizon: number
  readonly from: string | null
  readonly to: string | null
  readonly days: number
  readonly rows: number
  readonly untradable: Record<string, number>
  readonly ic: {
    readonly score: IcSummary
    readonly components: Record<string, IcSummary>
    readonly daily: DailyIc[]
  }
  readonly quintiles: {
    /** Mean return of each score quintile, lowest score first, averaged over days. */
    readonly mean_ret: Array<number | null>
    readonly top_minus_bottom: SeriesSummary
  }
  readonly groups: {
    readonly decision: GroupStat[]
    readonly logic_state: GroupStat[]
    readonly regime: GroupStat[]
    readonly theme: GroupStat[]
  }
  readonly portfolio: {
    readonly days: PortfolioDay[]
    readonly cum_excess: number | null
    readonly max_drawdown: number | null
    readonly ir: number | null
    readonly mean_turnover: number | null
    /** Plan days with at least one tradable main name (the others hold no position and are left out). */
    readonly invested_days: number
    readonly costs: CostModel
  }
}

export interface IcSummary extends SeriesSummary {
  readonly icir: number | null
}

function icSummary(values: readonly number[], lags: number): IcSummary {
  const s = summarise(values, lags)
  return { ...s, icir: s.mean !== null && s.sd ? s.mean / s.sd : null }
}

/** Pooled count, mean and sum of squared deviations of the excess, and its positive count, of one group. */
interface GroupTally {
  n: number
  mean: number
  m2: number
  positive: number
}

/**
 * Pools each day's tallies of the return into tallies of the excess over the days (Chan et al.'s pairwise update:
 * a day's excess is its return less one number, so its spread is the return's); days without a benchmark are left
 * out.
 */
function groupStats(
  days: readonly DayStats[],
  talliesOf: (day: DayStats) => Readonly<Record<string, Tally>>,
  order?: readonly string[],
): GroupStat[] {
  const groups = new Map<string, GroupTally>()
  for (const day of days) {
    if (day.benchRet === null) continue
    for (const [key, t] of Object.entries(talliesOf(day))) {
      let g = groups.get(key)
      if (!g) {
        g = { n: 0, mean: 0, m2: 0, positive: 0 }
        groups.set(key, g)
      }
      const n = g.n + t.n
      const delta = t.mean - day.benchRet - g.mean
      g.mean += (delta * t.n) / n
      g.m2 += t.m2 + (delta * delta * g.n * t.n) / n
      g.n = n
      g.positive += t.hits
    }
  }
  const keys = [...groups.keys()].sort((a, b) => {
    const ia = order ? order.indexOf(a) : -1
    const ib = order ? order.indexOf(b) : -1
    if (ia !== ib) return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib)
    return groups.get(b)!.n - groups.get(a)!.n || a.localeCompare(b)
  })
  return keys.map((key) => {
    const g = groups.get(key)!
    // Pooling days' tallies leaves a rounding residue where every return is the same (the row-by-row sum gives 0):
    // a spread below 1e-12 of the mean is that residue, and such a group has no t, as row by row
    const pooled = g.n >= 2 ? Math.sqrt(g.m2 / (g.n - 1)) : null
    const sd = pooled !== null && pooled > 1e-12 * Math.abs(g.mean) ? pooled : null
    return {
      key,
      count: g.n,
      mean_excess: g.mean,
      hit_rate: g.positive / g.n,
      // the plain t of the mean, as summarise() gives it without lags
      t: sd ? g.mean / (sd / Math.sqrt(g.n)) : null,
    }
  })
}

function portfolio(days: readonly DayStats[], horizon: number, costs: CostModel): TrackRecord['portfolio'] {
  const cohorts: Array<Map<string, number>> = []
  let value = 1
  let mainValue = 1
  let benchValue = 1
  const out: PortfolioDay[] = []
  for (const day of days) {
    const main = day.main
    const weight = main.length > 0 ? 1 / main.length : 0
    const weights = new Map(main.map((r) => [r.code, weight]))
    let bought = 0
    // each cohort is a new round trip: it buys what the cohort whose capital it takes (h plan days back) did not hold
    const previous = cohorts[cohorts.length - horizon] ?? new Map<string, number>()
    for (const [code, w] of weights) bought += Math.max(0, w - (previous.get(code) ?? 0))
    const ret = main.length > 0 ? main.reduce((s, r) => s + r.ret, 0) / main.length : 0
    const cost = bought * roundTripCost(costs, day.exitDate)
    // a day without tradable main names holds no position: it adds nothing to either curve
    const excess = day.benchRet === null || main.length === 0 ? null : ret - day.benchRet
    const net = excess === null ? null : excess - cost
    if (net !== null) {
      value *= 1 + net / horizon
      mainValue *= 1 + (ret - cost) / horizon
      benchValue *= 1 + day.benchRet! / horizon
    }
    out.push({
      date: day.date,
      names: main.length,
      ret: main.length > 0 ? ret : null,
      bench: day.benchRet,
      excess,
      turnover: bought,
      cost,
      net_excess: net,
      cum_excess: value,
      cum_main: mainValue,
      cum_bench: benchValue,
    })
    cohorts.push(weights)
  }
  const nets = out.flatMap((d) => (d.net_excess === null ? [] : [d.net_excess / horizon]))
  return {
    days: out,
    cum_excess: out.length ? value - 1 : null,
    max_drawdown: out.length ? maxDrawdown(out.map((d) => d.cum_excess)) : null,
    ir: nets.length >= MIN_IR_DAYS ? nonOverlappingIr(out, horizon) : null,
    mean_turnover: out.length ? out.reduce((a, d) => a + d.turnover, 0) / out.length : null,
    invested_days: nets.length,
    costs,
  }
}

/**
 * The annualised IR of the cohorts' net excess on non-overlapping windows: for each offset o < h, the cohorts of
 * every h-th plan day from o hold disjoint h-day windows; their IR (mean / sd × √(252 / h)) is averaged over the
 * offsets with two or more windows. Dividing overlapping cohorts' returns by h and annualising by √252 instead
 * shrinks their spread by about √h and inflates the IR as much. At h = 1 both are the daily IR.
 */
export function nonOverlappingIr(days: readonly PortfolioDay[], horizon: number): number | null {
  const irs: number[] = []
  for (let offset = 0; offset < horizon; offset++) {
    const windows: number[] = []
    for (let i = offset; i < days.length; i += horizon) {
      const net = days[i]!.net_excess
      if (net !== null) windows.push(net)
    }
    const s = summarise(windows)
    if (s.n >= 2 && s.mean !== null && s.sd) irs.push((s.mean / s.sd) * Math.sqrt(252 / horizon))
  }
  return irs.length ? irs.reduce((a, b) => a + b, 0) / irs.length : null
}

/** Fewer invested days than this give no information ratio: an annualised figure from a handful of days misleads. */
export const MIN_IR_DAYS = 20

export interface EvaluateOptions {
  readonly horizon: number
  readonly components?: readonly string[]
  /** Component ICs computed when the outcomes were written (signal_ic), by plan date: reported as they are. */
  readonly precomputedIcs?: ReadonlyMap<string, Readonly<Record<string, number>>>
  readonly costs?: CostModel
}

/**
 * The whole track record from each plan day's statistics (ascending by date). The days must have been summarised
 * with every name in `options.components`.
 */
export function assembleTrackRecord(days: readonly DayStats[], options: EvaluateOptions): TrackRecord {
  const components = options.components ?? SCORE_COMPONENTS
  const lags = Math.max(0, options.horizon - 1)
  const daily: DailyIc[] = days.map((d) => {
    const out: Record<string, number | null> = {}
    for (const name of components) out[name] = d.ic.components[name] ?? null
    return { date: d.date, score: d.ic.score, components: { ...out, ...options.precomputedIcs?.get(d.date) } }
  })
  const scoreIcs = daily.flatMap((d) => (d.score === null ? [] : [d.score]))
  const componentIcs: Record<string, IcSummary> = {}
  const names = new Set(components)
  for (const day of options.precomputedIcs?.values() ?? []) for (const name of Object.keys(day)) names.add(name)
  for (const name of names) {
    componentIcs[name] = icSummary(
      daily.flatMap((d) =>
        d.components[name] === null || d.components[name] === undefined ? [] : [d.components[name]!],
      ),
      lags,
    )
  }
  const quintileDays = days.flatMap((d) => (d.quintiles === null ? [] : [d.quintiles]))
  const meanRet = [0, 1, 2, 3, 4].map((q) =>
    quintileDays.length ? quintileDays.reduce((s, d) => s + d[q]!, 0) / quintileDays.length : null,
  )
  const untradable: Record<string, number> = {}
  let rows = 0
  for (const day of days) {
    rows += day.rows
    for (const [reason, n] of Object.entries(day.untradable)) untradable[reason] = (untradable[reason] ?? 0) + n
  }
  const regimeTally = (d: DayStats): Record<string, Tally> =>
    d.tallies.all ? { [d.regime ?? NO_KEY]: d.tallies.all } : {}
  return {
    horizon: options.horizon,
    from: days[0]?.date ?? null,
    to: days.at(-1)?.date ?? null,
    days: days.length,
    rows,
    untradable,
    ic: { score: icSummary(scoreIcs, lags), components: componentIcs, daily },
    quintiles: {
      mean_ret: meanRet,
      top_minus_bottom: summarise(
        quintileDays.map((d) => d[4]! - d[0]!),
        lags,
      ),
    },
    groups: {
      decision: groupStats(days, (d) => d.tallies.decision, ['main', 'observe', 'reject', 'absent']),
      logic_state: groupStats(days, (d) => d.tallies.logic_state, ['forming', 'confirmed', 'weakening', 'broken']),
      regime: groupStats(days, regimeTally, ['strong', 'neutral', 'weak', 'unknown']),
      theme: groupStats(days, (d) => d.tallies.theme),
    },
    portfolio: portfolio(days, options.horizon, options.costs ?? DEFAULT_COSTS),
  }
}

/** The whole track record over `days` (ascending by date), each day summarised from its rows. */
export function evaluateTrackRecord(days: readonly EvalDay[], options: EvaluateOptions): TrackRecord {
  const components = options.components ?? SCORE_COMPONENTS
  return assembleTrackRecord(
    days.map((d) => summariseDay(d, components)),
    options,
  )
}
