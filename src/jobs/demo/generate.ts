/**
 * `stockplan demo`: writes a deterministic synthetic A-share market in the native CSV format (DESIGN §7).
 * The same options give the same files byte for byte: every random draw comes from a seeded stream
 * (random.ts), and nothing reads the clock. Each file is written under a temporary name and renamed into place.
 */
import { mkdir } from 'node:fs/promises'
import type { Progress } from '../progress.js'
import { tradingCalendar } from './calendar.js'
import { asciiBytes, CsvFileWriter } from './csv-writer.js'
import { DEMO_FILES, type DemoFile, HEADERS, writeBar, writeBasics } from './files.js'
import { fen } from './format.js'
import { type Fundamentals, generateFundamentals, reportQuarters } from './fundamentals.js'
import { pickHoldings, type StockOutcome } from './holdings.js'
import { INDEX_CODE, indexBars, MarketTally } from './index-bars.js'
import { INDUSTRIES } from './industries.js'
import { ClosePath, createSeries, marketFactors, type PathOptions, type SteppedDays, simulateBars } from './prices.js'
import { stockProfile } from './profiles.js'
import { generateSecurities, MAX_STOCKS, type Security } from './securities.js'
import { PlantedFactor } from './signal.js'
import { themeMoves } from './theme-moves.js'
import { generateThemeEvents, generateThemeGraph } from './themes.js'

export interface DemoOptions {
  readonly stocks: number
  readonly days: number
  readonly seed: number
  /** Strength of the planted effects (signal.ts): 1 as documented, 0 for a market with no signal. */
  readonly signal?: number
  /** ISO date the calendar ends on (or the last trading day before it); default `2026-11-20`. */
  readonly endDate?: string
}

export interface DemoSummary {
  readonly dir: string
  readonly firstDate: string
  readonly lastDate: string
  /** File name -> data rows (header excluded). */
  readonly files: Record<string, number>
  readonly hotThemes: string[]
}

export const DEMO_DEFAULTS = { stocks: 800, days: 320, seed: 42, signal: 1, endDate: '2026-11-20' } as const
export const MIN_STOCKS = 10
export const MIN_DAYS = 2
export const MAX_DAYS = 2500

function checkInteger(name: string, value: number, lo: number, hi: number): void {
  if (!Number.isSafeInteger(value) || value < lo || value > hi) {
    throw new RangeError(`demo option ${name} must be an integer in ${lo}..${hi}, got ${value}`)
  }
}

function validate(options: DemoOptions): Required<DemoOptions> {
  checkInteger('stocks', options.stocks, MIN_STOCKS, MAX_STOCKS)
  checkInteger('days', options.days, MIN_DAYS, MAX_DAYS)
  checkInteger('seed', options.seed, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)
  const signal = options.signal ?? DEMO_DEFAULTS.signal
  if (!Number.isFinite(signal) || signal < 0 || signal > 5)
    throw new RangeError(`demo option signal must be a number in 0..5, got ${signal}`)
  const endDate = options.endDate ?? DEMO_DEFAULTS.endDate
  return { stocks: options.stocks, days: options.days, seed: options.seed, signal, endDate }
}

/** Everything the market is generated from, before any bar: deterministic in the options. */
export function demoUniverse(options: DemoOptions) {
  const { stocks, days, seed, signal, endDate } = validate(options)
  const calendar = tradingCalendar(endDate, days)
  const quarters = reportQuarters(endDate)
  const securities = generateSecurities(seed, stocks, calendar)
  const graph = generateThemeGraph(seed, securities)
  const events = generateThemeEvents(seed, graph, calendar)
  const profiles = securities.map((s) => stockProfile(seed, s, days, graph.hotWeight[s.index]!))
  const fundamentals = securities.map((s) =>
    generateFundamentals(seed, s, profiles[s.index]!, quarters, calendar, endDate, graph.hotWeight[s.index]!),
  )
  const factors = marketFactors(
    seed,
    days,
    INDUSTRIES.map((i) => i.name),
  )
  const themes = themeMoves(seed, securities, graph, days)
  return {
    stocks,
    days,
    seed,
    signal,
    endDate,
    calendar,
    securities,
    graph,
    events,
    profiles,
    fundamentals,
    factors,
    themes,
  }
}

export type DemoUniverse = ReturnType<typeof demoUniverse>

function pathOptions(u: DemoUniverse, s: Security): PathOptions {
  const { seed, signal, days, profiles, factors, graph, themes } = u
  const profile = profiles[s.index]!
  return { seed, sec: s, profile, factors, hotWeight: graph.hotWeight[s.index]!, theme: themes[s.index]!, signal, days }
}

/**
 * Every stock's closes and volumes over the calendar (by stock index; 0 before its first bar). The planted effects
 * of a day depend on every stock's bars before it (signal.ts), so all stocks step day by day; `onDay` sees each
 * day's g by stock index (all 0 with `signal` 0, where nothing uses it) before the day is stepped.
 */
export function simulateCloses(u: DemoUniverse, onDay?: (t: number, g: Float64Array) => void): SteppedDays[] {
  const { securities, calendar, days, fundamentals, profiles } = u
  const planted =
    u.signal > 0
      ? new PlantedFactor(
          securities,
          profiles.map((p) => p.totalShares),
          fundamentals.map((f) => f.financials),
          calendar,
        )
      : null
  const none = new Float64Array(securities.length)
  const paths = securities.map((s) => new ClosePath(pathOptions(u, s)))
  const stepped = securities.map(
    (): SteppedDays => ({
      close: new Int32Array(days),
      volume: new Float64Array(days),
      oneWord: new Uint8Array(days),
    }),
  )
  for (let t = 0; t < days; t++) {
    const g = planted ? planted.next(t) : none
    onDay?.(t, g)
    for (const s of securities) {
      if (t < s.firstBar) continue
      const i = s.index
      const path = paths[i]!
      path.step(t, g[i]!)
      const out = stepped[i]!
      out.close[t] = path.close
      out.volume[t] = path.volume
      out.oneWord[t] = path.oneWord ? 1 : 0
      planted?.record(i, t, path.close, path.pre, path.volume, path.suspended(t))
    }
    planted?.endDay(t)
  }
  return stepped
}

export async function generateDemoMarket(dir: string, options: DemoOptions, progress: Progress): Promise<DemoSummary> {
  const universe = demoUniverse(options)
  const { stocks, days, seed, endDate, calendar, securities, graph, events, profiles, fundamentals } = universe
  await mkdir(dir, { recursive: true })

  const writers = new Map<DemoFile, CsvFileWriter>()
  const files: Record<string, number> = {}
  try {
    for (const name of DEMO_FILES) writers.set(name, await CsvFileWriter.create(dir, name, HEADERS[name]))
    const w = (name: DemoFile) => writers.get(name)!

    for (const s of securities) {
      w('securities.csv').row([s.code, s.name, s.exchange, s.board, s.industry.name, s.listDate, null])
    }
    writeFundamentals(w('financials.csv'), w('forecasts.csv'), securities, fundamentals)
    for (const e of graph.edges) {
      w('theme_edges.csv').row([e.theme, e.segment, e.code, e.weight.toFixed(2), e.evidence, e.track])
    }
    for (const e of events) w('theme_events.csv').row([e.tradeDate, e.theme, e.intensity, e.title])

    progress.start('demo market: closes', days, 'days')
    const stepped = simulateCloses(universe, () => progress.tick())
    progress.done()
    progress.start('demo market: bars', stocks, 'stocks')
    const tally = new MarketTally(days)
    const series = createSeries(days)
    const outcomes: StockOutcome[] = []
    const dateBytes = calendar.map(asciiBytes)
    const bars = w('bars.csv')
    const basics = w('basics.csv')
    for (const s of securities) {
      const profile = profiles[s.index]!
      const reports = fundamentals[s.index]!.financials
      simulateBars(series, pathOptions(universe, s), stepped[s.index]!)
      const code = asciiBytes(s.code)
      let report = 0
      for (let t = series.first; t < days; t++) {
        const date = dateBytes[t]!
        while (report + 1 < reports.length && reports[report + 1]!.annDate <= calendar[t]!) report++
        const fin = reports[report]!
        writeBar(bars, code, date, series, t, s.isSt)
        const { totalShares, floatShares } = profile
        writeBasics(basics, code, date, series.close[t]!, fin.eps, fin.bvps, totalShares, floatShares)
        if (series.suspended[t] === 0) {
          tally.add(t, series.pre[t]!, series.open[t]!, series.close[t]!, series.volume[t]!, series.amount[t]!)
        }
      }
      outcomes.push(outcome(s, series.close, days, graph.hotWeight[s.index]!, series.suspended[days - 1] === 1))
      await bars.maybeFlush()
      await basics.maybeFlush()
      progress.tick()
    }

    for (const [t, bar] of indexBars(seed, tally).entries()) {
      w('index_bars.csv').row([
        INDEX_CODE,
        calendar[t]!,
        fen(bar.open),
        fen(bar.high),
        fen(bar.low),
        fen(bar.close),
        fen(bar.pre),
        bar.volume,
        bar.amount,
        null,
        1,
        false,
        false,
      ])
    }
    for (const h of pickHoldings(seed, outcomes)) w('holdings.csv').row([h.code, h.qty, fen(h.costFen), endDate])

    for (const name of DEMO_FILES) {
      files[name] = await w(name).commit()
      writers.delete(name)
    }
    progress.done(`${stocks} stocks x ${days} days, ${calendar[0]} .. ${calendar[days - 1]}`)
  } catch (error) {
    for (const writer of writers.values()) await writer.abort()
    throw error
  }
  return {
    dir,
    firstDate: calendar[0]!,
    lastDate: calendar[days - 1]!,
    files,
    hotThemes: [...graph.hotThemes],
  }
}

function writeFundamentals(
  financials: CsvFileWriter,
  forecasts: CsvFileWriter,
  securities: readonly Security[],
  all: readonly Fundamentals[],
): void {
  for (const s of securities) {
    const f = all[s.index]!
    for (const r of f.financials) {
      financials.row([
        s.code,
        r.endDate,
        r.annDate,
        r.eps,
        r.bvps,
        r.roe,
        r.grossMargin,
        r.ocfToNp,
        r.debtToAssets,
        r.revenueYoy,
        r.npYoy,
      ])
    }
    for (const r of f.forecasts) forecasts.row([s.code, r.asOf, r.fiscalYear, r.epsMean, r.epsLow, r.epsHigh])
  }
}

function outcome(
  s: Security,
  close: Int32Array,
  days: number,
  hotWeight: number,
  suspendedLast: boolean,
): StockOutcome {
  const last = close[days - 1]!
  const tenAgo = close[Math.max(s.firstBar, days - 11)]!
  return {
    index: s.index,
    code: s.code,
    eligible: !s.isNew && !s.isSt && !suspendedLast,
    hotWeight,
    recentReturn: last / tenAgo - 1,
    monthAgoFen: close[Math.max(s.firstBar, days - 21)]!,
  }
}
