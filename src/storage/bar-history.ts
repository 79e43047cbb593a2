import { sql } from 'kysely'
import type { ExitBar } from '../domain/outcomes.js'
import type { Quote } from '../domain/plan-types.js'
import type { BarSeries } from '../domain/scoring.js'
import { lowerBound } from '../domain/stats.js'
import { doubles, flagColumn, flags, floatColumn } from './column-bytes.js'
import type { Db } from './db.js'
import { type FinancialsSource, loadFinancialsHistory } from './financials-history.js'
import type { EntryBarRow } from './outcomes.repository.js'
import { loadPeHistory, type PeStatsSource } from './pe-history.js'
import {
  assembleMarketInput,
  loadIndexCloses,
  MA_DAYS,
  type MarketInputSource,
  type MarketRows,
  maWindowStart,
} from './regime-input.repository.js'
import type { IsoDate } from './schema.js'

/** A window of bars per code, as `MarketDataRepository.bars` gives it. */
export type BarsSource = (from: IsoDate, to: IsoDate) => Promise<Map<string, BarSeries>>

/**
 * What a replay's days read of the market, answered from one read of the whole range instead of a query a day:
 * each answer equals the store's (`MarketDataRepository.bars`, `missingBars`, `loadMarketInput`, the outcomes'
 * entry and exit bars) for any date inside the range.
 */
export interface MarketHistory {
  readonly from: IsoDate
  readonly to: IsoDate
  readonly bars: BarsSource
  readonly marketInput: MarketInputSource
  /** Listed securities without a bar on the date (`MarketDataRepository.missingBars`). */
  readonly missingBars: (date: IsoDate) => Promise<number>
  readonly entryBars: (date: IsoDate, codes: readonly string[]) => Promise<EntryBarRow[]>
  readonly exitBars: (date: IsoDate, codes: readonly string[]) => Promise<Map<string, ExitBar>>
  /** The day's close, change and turnover of the codes (`PlanInputRepository.quotes`). */
  readonly quotes: (date: IsoDate, codes: readonly string[]) => Promise<Map<string, Quote>>
  /** PE(TTM) percentiles over five years (`MarketDataRepository.peStats`), best asked in date order. */
  readonly peStats: PeStatsSource
  /** Financial reports as known on the date (`MarketDataRepository.financials`). */
  readonly financials: FinancialsSource
}

/** One code's bars as typed columns (off the JS heap, so a year of the market costs the collector nothing). */
interface CodeColumns {
  /** Index of each bar's date in the history's `days`, ascending. */
  readonly day: Int32Array
  /** The same dates as text (one shared string per day), so a window's dates are one slice. */
  readonly dates: readonly IsoDate[]
  /** Per day of the history, the index of this code's bar on it, or -1 (a lookup instead of a search). */
  readonly barAt: Int32Array
  readonly close: Float64Array
  readonly adj: Float64Array
  readonly amount: Float64Array
  readonly volume: Float64Array
  /** NaN where unknown. */
  readonly turnover: Float64Array
  readonly suspended: Uint8Array
  /** NaN where unknown. */
  readonly preClose: Float64Array
  readonly isSt: Uint8Array
  readonly open: Float64Array
  readonly high: Float64Array
  readonly low: Float64Array
  /** Each bar's close over its open (NaN without an open): the same day's prices, so no adjustment applies. */
  readonly intraday: Float64Array
}

interface SecurityFacts {
  readonly board: string
  readonly list_date: IsoDate | null
  readonly delist_date: IsoDate | null
  readonly list_status: string | null
}

const nullable = (v: number): number | null => (Number.isNaN(v) ? null : v)

/**
 * Every code's bars in the range, one row per code. Numbers come as bytes (`float8send`, a null as NaN) and flags
 * as characters: a year of the market is some 20 M values, and parsing them from array text was most of the read.
 */
async function readColumns(db: Db, from: IsoDate, to: IsoDate) {
  const floats = (column: string, ifNull?: string) => floatColumn(ifNull ? `coalesce(${column}, ${ifNull})` : column)
  const { rows } = await sql<{ code: string; dates: string; suspended: string; isSt: string } & Record<string, Buffer>>`
    select code,
      string_agg(trade_date::text, ',' order by trade_date) as dates,
      ${floats('close')} as close,
      ${floats('adj_factor')} as adj,
      ${floats('amount')} as amount,
      ${floats('volume')} as volume,
      ${floats('turnover_rate', "'NaN'")} as turnover,
      ${flagColumn('is_suspended')} as suspended,
      ${floats('pre_close', "'NaN'")} as "preClose",
      ${flagColumn('is_st')} as "isSt",
      ${floats('open')} as open,
      ${floats('high')} as high,
      ${floats('low')} as low
    from daily_bars where trade_date >= ${from}::date and trade_date <= ${to}::date
    group by code order by code`.execute(db)
  const datesOf = new Map(rows.map((r) => [r.code, r.dates.split(',') as IsoDate[]]))
  const seen = new Set<IsoDate>()
  for (const dates of datesOf.values()) for (const d of dates) seen.add(d)
  const days = [...seen].sort()
  const dayIndex = new Map(days.map((d, i) => [d, i]))
  const history = new Map<string, CodeColumns>()
  for (const r of rows) {
    const dates = datesOf.get(r.code)!
    const close = doubles(r.close!)
    const open = doubles(r.open!)
    history.set(r.code, {
      day: Int32Array.from(dates, (d) => dayIndex.get(d)!),
      dates: dates.map((d) => days[dayIndex.get(d)!]!),
      barAt: barIndex(dates, dayIndex, days.length),
      close,
      adj: doubles(r.adj!),
      amount: doubles(r.amount!),
      volume: doubles(r.volume!),
      turnover: doubles(r.turnover!),
      suspended: flags(r.suspended),
      preClose: doubles(r.preClose!),
      isSt: flags(r.isSt),
      open,
      high: doubles(r.high!),
      low: doubles(r.low!),
      intraday: close.map((c, i) => (open[i]! > 0 ? c / open[i]! : Number.NaN)),
    })
  }
  return { days, history }
}

async function readSecurities(db: Db): Promise<Map<string, SecurityFacts>> {
  const rows = await db
    .selectFrom('securities')
    .select(['code', 'board', 'list_date', 'delist_date', 'list_status'])
    .orderBy('code')
    .execute()
  return new Map(rows.map(({ code, ...facts }) => [code, facts]))
}

function barIndex(dates: readonly IsoDate[], dayIndex: ReadonlyMap<IsoDate, number>, days: number): Int32Array {
  const at = new Int32Array(days).fill(-1)
  for (let i = 0; i < dates.length; i++) at[dayIndex.get(dates[i]!)!] = i
  return at
}

/** The index of the code's bar on day `day` of the history, or -1. */
function barOn(c: CodeColumns, day: number): number {
  return day < 0 ? -1 : c.barAt[day]!
}

/**
 * Every code's bars over a whole range, read once (one row per code), plus the securities and the regime index,
 * then cut into what each day of a replay asks for. A bars window comes out exactly as
 * `MarketDataRepository.bars` computes it in SQL: closes forward-adjusted to the window's last day
 * (`close x adj / last adj`, the close itself where the factors are equal), volumes on the last day's share count
 * (`volume x last adj / adj`), `adjFactor` 1.
 */
export async function loadMarketHistory(db: Db, from: IsoDate, to: IsoDate): Promise<MarketHistory> {
  const [{ days, history }, securities, indexCloses, peStats, financials] = await Promise.all([
    readColumns(db, from, to),
    readSecurities(db),
    loadIndexCloses(db, to, Number.MAX_SAFE_INTEGER),
    loadPeHistory(db, from, to),
    loadFinancialsHistory(db, to),
  ])
  const dayOf = (date: IsoDate): number => {
    const i = lowerBound(days, date)
    return days[i] === date ? i : -1
  }
  const inRange = (what: string, date: IsoDate): void => {
    if (date < from || date > to) throw new Error(`market history holds ${from}..${to}; asked for ${what} on ${date}`)
  }
  // the whole market's amount per day, summed once (the regime's turnover item reads 20 of them a day)
  const dayAmount = new Float64Array(days.length)
  for (const c of history.values()) for (let i = 0; i < c.day.length; i++) dayAmount[c.day[i]!]! += c.amount[i]!

  const ones = new Float64Array(days.length).fill(1)
  const bars: BarsSource = async (windowFrom, windowTo) => {
    inRange('bars', windowFrom)
    inRange('bars', windowTo)
    const first = lowerBound(days, windowFrom)
    const last = lowerBound(days, `${windowTo}\u0000`) // one past the window's last day
    const out = new Map<string, BarSeries>()
    for (const [code, c] of history) {
      const start = lowerBound(c.day, first)
      const end = lowerBound(c.day, last)
      if (end <= start) continue
      out.set(code, cutSeries(c, start, end, ones))
    }
    return out
  }

  let memo: { date: IsoDate; input: ReturnType<MarketInputSource> } | undefined
  const marketInput: MarketInputSource = async (date, calendar) => {
    inRange('market input', date)
    inRange('the MA window of market input', maWindowStart(date, calendar))
    if (memo?.date !== date) memo = { date, input: Promise.resolve(marketRows(date, calendar)) }
    return memo.input
  }
  function marketRows(date: IsoDate, calendar: readonly IsoDate[]) {
    const day = dayOf(date)
    const first = lowerBound(days, maWindowStart(date, calendar))
    const last = lowerBound(days, `${date}\u0000`)
    const stocks: Array<MarketRows['stocks'][number]> = []
    const averages = new Map<string, { ma: number; n: number }>()
    for (const [code, c] of history) {
      let sum = 0
      let n = 0
      for (let i = lowerBound(c.day, first); i < c.day.length && c.day[i]! < last; i++) {
        if (c.suspended[i] === 1) continue
        sum += c.close[i]! * c.adj[i]!
        n++
      }
      if (n > 0) averages.set(code, { ma: sum / n, n })
      const security = securities.get(code)
      const i = day < 0 ? -1 : barOn(c, day)
      if (i < 0 || !security) continue
      stocks.push({
        code,
        close: c.close[i]!,
        pre_close: nullable(c.preClose[i]!),
        amount: c.amount[i]!,
        adj_factor: c.adj[i]!,
        is_st: c.isSt[i] === 1,
        is_suspended: c.suspended[i] === 1,
        board: security.board,
        list_date: security.list_date,
      })
    }
    const index = indexCloses.filter((r) => r.trade_date <= date).slice(0, MA_DAYS)
    return assembleMarketInput(date, calendar, {
      stocks,
      averages,
      amounts: Array.from(dayAmount.subarray(first, last)),
      index,
    })
  }

  return {
    from,
    to,
    bars,
    marketInput,
    peStats,
    financials,
    async missingBars(date) {
      inRange('missing bars', date)
      const day = dayOf(date)
      let missing = 0
      for (const [code, s] of securities) {
        const listed =
          (s.list_date === null || s.list_date <= date) &&
          (s.delist_date === null || s.delist_date > date) &&
          (s.list_status !== 'D' || s.delist_date !== null)
        if (!listed) continue
        const c = history.get(code)
        if (day < 0 || !c || barOn(c, day) < 0) missing++
      }
      return missing
    },
    async entryBars(date, codes) {
      inRange('entry bars', date)
      const day = dayOf(date)
      const out: EntryBarRow[] = []
      for (const code of codes) {
        const c = history.get(code)
        const i = c && day >= 0 ? barOn(c, day) : -1
        if (i < 0) continue
        const security = securities.get(code)
        out.push({
          code,
          open: c!.open[i]!,
          adj_factor: c!.adj[i]!,
          is_suspended: c!.suspended[i] === 1,
          pre_close: nullable(c!.preClose[i]!),
          is_st: c!.isSt[i] === 1,
          board: security?.board ?? null,
          list_date: security?.list_date ?? null,
        })
      }
      return out
    },
    async quotes(date, codes) {
      inRange('quotes', date)
      const day = dayOf(date)
      const out = new Map<string, Quote>()
      for (const code of codes) {
        const c = history.get(code)
        const i = c && day >= 0 ? barOn(c, day) : -1
        if (i < 0) continue
        const close = c!.close[i]!
        const preClose = nullable(c!.preClose[i]!)
        const turnover = nullable(c!.turnover[i]!)
        out.set(code, {
          close,
          pct_chg: preClose ? close / preClose - 1 : null,
          // stored in percent (tushare's unit); plan rows carry ratios as fractions
          turnover_rate: turnover === null ? null : turnover / 100,
          amount: c!.amount[i]!,
        })
      }
      return out
    },
    async exitBars(date, codes) {
      inRange('exit bars', date)
      const day = dayOf(date)
      const out = new Map<string, ExitBar>()
      for (const code of codes) {
        const c = history.get(code)
        const i = c && day >= 0 ? barOn(c, day) : -1
        if (i >= 0) out.set(code, { close: c!.close[i]!, adjFactor: c!.adj[i]! })
      }
      return out
    },
  }
}

/**
 * One code's window as views on its columns (no copy): closes and volumes are copied only where a factor in the
 * window differs from the last one (the window then needs forward adjustment).
 */
function cutSeries(c: CodeColumns, start: number, end: number, ones: Float64Array): BarSeries {
  const n = end - start
  const lastAdj = c.adj[end - 1]!
  let adjusts = false
  for (let i = start; i < end && !adjusts; i++) adjusts = c.adj[i] !== lastAdj
  let close = c.close.subarray(start, end)
  let volume = c.volume.subarray(start, end)
  if (adjusts) {
    close = new Float64Array(n)
    volume = new Float64Array(n)
    for (let i = start; i < end; i++) {
      const f = c.adj[i]!
      close[i - start] = f === lastAdj ? c.close[i]! : (c.close[i]! * f) / lastAdj
      volume[i - start] = f === lastAdj ? c.volume[i]! : (c.volume[i]! * lastAdj) / f
    }
  }
  return {
    dates: c.dates.slice(start, end),
    close,
    adjFactor: ones.subarray(0, n),
    amount: c.amount.subarray(start, end),
    volume,
    turnover: c.turnover.subarray(start, end),
    intraday: c.intraday.subarray(start, end),
    suspended: c.suspended.subarray(start, end),
    preClose: nullable(c.preClose[end - 1]!),
    isSt: c.isSt[end - 1] === 1,
    open: c.open[end - 1]!,
    high: c.high[end - 1]!,
    low: c.low[end - 1]!,
  }
}
