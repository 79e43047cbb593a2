/**
 * The track record as `evaluate` computed it before issue 28: every figure from the day's rows, in one process.
 * Frozen here as the oracle the per-day statistics path is compared with (test/services/track-record-days.test.ts
 * and bench/evaluate.bench.ts's "before").
 */
import {
  type CostModel,
  type DailyIc,
  DEFAULT_COSTS,
  type EvalDay,
  type EvalRow,
  type EvaluateOptions,
  type GroupStat,
  type IcSummary,
  MIN_IR_DAYS,
  nonOverlappingIr,
  type PortfolioDay,
  roundTripCost,
  SCORE_COMPONENTS,
  type TrackRecord,
} from '../../src/domain/track-record.js'
import { averageRanks, maxDrawdown, pearson, spearman, summarise } from '../../src/domain/track-stats.js'

function icSummary(values: readonly number[], lags: number): IcSummary {
  const s = summarise(values, lags)
  return { ...s, icir: s.mean !== null && s.sd ? s.mean / s.sd : null }
}

const tradableByDay = new WeakMap<EvalDay, EvalRow[]>()

/** The day's rows with a return (computed once per day: every figure starts from them). */
function tradableRows(day: EvalDay): EvalRow[] {
  let rows = tradableByDay.get(day)
  if (!rows) {
    rows = day.rows.filter((r) => r.tradable && r.ret !== null)
    tradableByDay.set(day, rows)
  }
  return rows
}

function dailyIc(day: EvalDay, components: readonly string[], precomputed?: Readonly<Record<string, number>>): DailyIc {
  const rows = tradableRows(day)
  const n = rows.length
  const retRanks = averageRanks(column(rows, (r) => r.ret!))
  const ic = (values: Float64Array) => (n < 3 ? null : pearson(averageRanks(values), retRanks))
  const out: Record<string, number | null> = {}
  for (const name of components) {
    const present = rows.filter((r) => r.components[name] !== null && r.components[name] !== undefined)
    out[name] =
      present.length === n
        ? ic(column(rows, (r) => r.components[name]!))
        : spearman(
            column(present, (r) => r.components[name]!),
            column(present, (r) => r.ret!),
          )
  }
  return { date: day.date, score: ic(column(rows, (r) => r.score)), components: { ...out, ...precomputed } }
}

function column(rows: readonly EvalRow[], value: (row: EvalRow) => number): Float64Array {
  const out = new Float64Array(rows.length)
  for (let i = 0; i < rows.length; i++) out[i] = value(rows[i]!)
  return out
}

/** Mean return per score quintile on one day (rank-based buckets, ties by code); null under 5 rows. */
function quintileMeans(day: EvalDay): number[] | null {
  const rows = tradableRows(day).sort((a, b) => a.score - b.score || (a.code < b.code ? -1 : 1))
  const n = rows.length
  if (n < 5) return null
  const sums = [0, 0, 0, 0, 0]
  const counts = [0, 0, 0, 0, 0]
  rows.forEach((r, i) => {
    const q = Math.min(4, Math.floor((i * 5) / n))
    sums[q]! += r.ret!
    counts[q]!++
  })
  return sums.map((s, q) => s / counts[q]!)
}

/** Running count, mean and sum of squared deviations (Welford), and the count of positive values, of one group. */
interface GroupTally {
  n: number
  mean: number
  m2: number
  positive: number
}

function groupStats(
  days: readonly EvalDay[],
  keyOf: (row: EvalRow, day: EvalDay) => string | null,
  order?: readonly string[],
): GroupStat[] {
  const groups = new Map<string, GroupTally>()
  for (const day of days) {
    if (day.benchRet === null) continue
    for (const row of tradableRows(day)) {
      const key = keyOf(row, day) ?? '(none)'
      let g = groups.get(key)
      if (!g) {
        g = { n: 0, mean: 0, m2: 0, positive: 0 }
        groups.set(key, g)
      }
      const excess = row.ret! - day.benchRet
      g.n++
      const delta = excess - g.mean
      g.mean += delta / g.n
      g.m2 += delta * (excess - g.mean)
      if (excess > 0) g.positive++
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
    // the record's own rule: returns that agree to 12 digits (a spread below 1e-12 of the mean) give no t; row by
    // row they may still differ in their last bits (0.0008 - 0.0228 against -0.0447 + 0.0227), and a t of 1e15
    // from that difference says nothing
    const spread = g.n >= 2 ? Math.sqrt(g.m2 / (g.n - 1)) : null
    const sd = spread !== null && spread > 1e-12 * Math.abs(g.mean) ? spread : null
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

function portfolio(days: readonly EvalDay[], horizon: number, costs: CostModel): TrackRecord['portfolio'] {
  const cohorts: Array<Map<string, number>> = []
  let value = 1
  let mainValue = 1
  let benchValue = 1
  const out: PortfolioDay[] = []
  for (const day of days) {
    const main = tradableRows(day).filter((r) => r.decision === 'main')
    const weight = main.length > 0 ? 1 / main.length : 0
    const weights = new Map(main.map((r) => [r.code, weight]))
    let bought = 0
    // each cohort is a new round trip: it buys what the cohort whose capital it takes (h plan days back) did not hold
    const previous = cohorts[cohorts.length - horizon] ?? new Map<string, number>()
    for (const [code, w] of weights) bought += Math.max(0, w - (previous.get(code) ?? 0))
    const ret = main.length > 0 ? main.reduce((s, r) => s + r.ret!, 0) / main.length : 0
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

/** The whole track record over `days` (ascending by date), computed row by row as before issue 28. */
export function referenceTrackRecord(days: readonly EvalDay[], options: EvaluateOptions): TrackRecord {
  const components = options.components ?? SCORE_COMPONENTS
  const lags = Math.max(0, options.horizon - 1)
  const daily = days.map((d) => dailyIc(d, components, options.precomputedIcs?.get(d.date)))
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
  const quintileDays = days.map(quintileMeans).filter((q): q is number[] => q !== null)
  const meanRet = [0, 1, 2, 3, 4].map((q) =>
    quintileDays.length ? quintileDays.reduce((s, d) => s + d[q]!, 0) / quintileDays.length : null,
  )
  const untradable: Record<string, number> = {}
  let rows = 0
  for (const day of days) {
    for (const row of day.rows) {
      rows++
      if (!row.tradable) untradable[row.reason ?? 'unknown'] = (untradable[row.reason ?? 'unknown'] ?? 0) + 1
    }
  }
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
      decision: groupStats(days, (r) => r.decision, ['main', 'observe', 'reject', 'absent']),
      logic_state: groupStats(days, (r) => r.logicState, ['forming', 'confirmed', 'weakening', 'broken']),
      regime: groupStats(days, (_r, d) => d.regime, ['strong', 'neutral', 'weak', 'unknown']),
      theme: groupStats(days, (r) => r.theme),
    },
    portfolio: portfolio(days, options.horizon, options.costs ?? DEFAULT_COSTS),
  }
}
