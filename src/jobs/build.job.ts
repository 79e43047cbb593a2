import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import { BOARD_HEAT_RULES } from '../domain/board-heat.js'
import { BUILD_RULES } from '../domain/build-rules.js'
import { computeMarket, computeRegime } from '../domain/regime.js'
import { type ScoredStock, type StockFacts, scoreDay } from '../domain/scoring.js'
import { SIGNAL_DEFINITIONS } from '../domain/signal-definitions.js'
import { learnWeights, type SignalIcDay, WEIGHT_RULES } from '../domain/signal-weights.js'
import { SIGNAL_NAMES, SIGNAL_WINDOWS, type SignalColumns } from '../domain/signals.js'
import { stockFacts } from '../domain/stock-facts.js'
import { notATradingDay } from '../domain/trading-days.js'
import type { Logger } from '../logger.js'
import type { MarketHistory } from '../storage/bar-history.js'
import type { Db } from '../storage/db.js'
import type { MarketDataRepository } from '../storage/market-data.repository.js'
import { loadMarketInput, REGIME_INDEX } from '../storage/regime-input.repository.js'
import { replaceTierScores } from '../storage/tier-write.repository.js'
import { type DateArgs, type JobResult, throwIfAborted } from './job.js'
import type { Progress } from './progress.js'

export interface BuildDeps {
  readonly db: Db
  /** The pool the day's rows are copied in through (COPY needs a client of its own). */
  readonly pool: pg.Pool
  readonly market: MarketDataRepository
  readonly log: Logger
  readonly progress: Progress
  readonly codeVersion: string
  /** The book the plan is built for, CNY (PLAN_BOOK_SIZE_CNY): what entry and stay weigh each trade's cost at. */
  readonly bookSize: number
  readonly now: () => Date
  /**
   * Signal ICs measured on signals of `definitions`, of plan days whose exit is before the date, newest first
   * (`SignalIcRepository.history`).
   */
  readonly icHistory: (asOf: string, days: number, definitions: string) => Promise<SignalIcDay[]>
  /**
   * The published `main` of the plan date before `date` (empty when there is none), each code with the plan days in
   * a row it has been in `main` (`holdingStreaks` of `PlanInputRepository.publishedMains`).
   */
  readonly previousMain: (date: string) => Promise<ReadonlyMap<string, number>>
  /** Where the bars and whole-market figures come from: the store (default), or a replay's history read once. */
  readonly history?: Pick<MarketHistory, 'bars' | 'marketInput' | 'missingBars' | 'peStats' | 'financials'>
  /** Told once the date's rows are committed. */
  readonly onBuilt?: (date: string) => void
  /** Handed the date's tier rows as they are written (a replay keeps them for the steps that read them back). */
  readonly onScored?: (date: string, rows: readonly ScoredStock[], signals: SignalColumns) => void
  /** Takes the write of the rows instead of waiting for it (a replay awaits it before the day counts as done). */
  readonly writeBehind?: (write: Promise<void>) => void
}

export interface BuildResult extends JobResult {
  readonly buildId: string
  readonly counts: Record<string, number>
  readonly stale: string
}

export class BuildInputError extends Error {
  override name = 'BuildInputError'
}

/** Why the inputs for `date` were incomplete, or '' when they were not. */
function staleText(
  date: string,
  calendar: readonly string[],
  missingBars: number,
  lastEvent: string | undefined,
): string {
  const notes: string[] = []
  if (missingBars > 0) notes.push(`${missingBars} listed stocks have no bar on ${date}`)
  const cutoff = calendar[Math.max(0, calendar.length - 1 - BUILD_RULES.staleEventDays)]!
  if (lastEvent === undefined) notes.push('no theme events imported')
  else if (lastEvent < cutoff) notes.push(`theme events last on ${lastEvent}`)
  return notes.join('; ')
}

/** The signals no stock had data for on the day (e.g. value_ep without daily_basic), in words, or ''. */
function missingSignalsText(rows: readonly { readonly signals: Readonly<Record<string, number>> }[]): string {
  if (rows.length === 0) return ''
  // one pass over each row's own keys: a scan of every row per absent signal was a fortieth of a build
  const seen = new Set<string>()
  for (const row of rows) {
    for (const name in row.signals) seen.add(name)
    if (seen.size >= SIGNAL_NAMES.length && SIGNAL_NAMES.every((name) => seen.has(name))) return ''
  }
  const missing = SIGNAL_NAMES.filter((name) => !seen.has(name))
  return missing.length === 0 ? '' : `no data for signals ${missing.join(', ')} (they carry no weight today)`
}

/** Tier scores for data date T, written with a builds record in one transaction (a rerun replaces the date). */
export async function runBuild(deps: BuildDeps, args: DateArgs, signal: AbortSignal): Promise<BuildResult> {
  const startedAt = deps.now()
  const { progress } = deps
  const { date, calendar } = await buildDay(deps, args)
  const inputs = await loadBuildInputs(deps, date, calendar)
  const weights = learnWeights(inputs.icHistory, date)
  // The day's regime as the plan job will compute it: a weak day shrinks `main` (TIER_RULES.weakMainShare).
  const regime = computeRegime(computeMarket(inputs.marketInput), date)
  progress.tick()
  throwIfAborted(signal)

  const day = scoreDay({
    date,
    calendar,
    securities: inputs.securities,
    bars: inputs.bars,
    edges: inputs.edges,
    events: inputs.events,
    boards: inputs.boards,
    facts: await factsOf(date, inputs),
    weakRegime: regime.status === 'weak',
    indexReturns: inputs.indexReturns,
    weights,
    previousMain: inputs.previousMain,
    bookSize: deps.bookSize,
  })
  const scored = day.rows
  progress.tick()
  throwIfAborted(signal)

  const counts = buildCounts(inputs, day, weights)
  const stale = staleText(date, calendar, counts.missing_bars, inputs.lastEvent)
  const noData = missingSignalsText(scored)
  const buildId = `${date}-${randomUUID().slice(0, 8)}`
  const write = replaceTierScores(
    deps.pool,
    {
      build_id: buildId,
      trade_date: date,
      started_at: startedAt,
      finished_at: deps.now(),
      code_version: deps.codeVersion,
      stale,
      counts,
      weights,
      main_empty: day.cuts.emptyReason,
      signal_definitions: SIGNAL_DEFINITIONS,
    },
    scored,
  ).then(() => deps.onBuilt?.(date))
  deps.onScored?.(date, scored, day.signalColumns)
  if (deps.writeBehind) deps.writeBehind(write)
  else await write
  progress.tick(2)
  progress.done()
  const summary = `build ${date}: ${counts.scored} scored (${counts.main} main, ${counts.observe} observe)${stale ? `; stale: ${stale}` : ''}${noData ? `; ${noData}` : ''}`
  deps.log.info({ date, buildId, counts, cuts: day.cuts, regime: regime.status, stale, noData }, 'build finished')
  return { summary, date, buildId, counts, stale }
}

/** The date to build (the last bar's unless given) and the trading calendar through it; starts the progress. */
async function buildDay(deps: BuildDeps, args: DateArgs): Promise<{ date: string; calendar: string[] }> {
  const { market } = deps
  const date = args.date ?? (await market.latestBarDate())
  if (!date)
    throw new BuildInputError('no daily bars imported: run `stockplan import --dir DIR` or `stockplan demo` first')
  const closed = args.date === undefined ? undefined : notATradingDay(date, await market.calendarAround(date))
  if (closed) throw new BuildInputError(closed)
  deps.progress.start(`build ${date}`, 4)
  const calendar = await market.calendar(date)
  if (calendar[calendar.length - 1] !== date) {
    throw new BuildInputError(
      `no daily bars on ${date}: import that day's data first (latest is ${calendar.at(-1) ?? 'none'})`,
    )
  }
  return { date, calendar }
}

type BuildInputs = Awaited<ReturnType<typeof loadBuildInputs>>

/** Everything the day's scores are computed from, read at once: the bars from the history when a replay has one. */
async function loadBuildInputs(deps: BuildDeps, date: string, calendar: readonly string[]) {
  const { market, history } = deps
  const from = calendar[Math.max(0, calendar.length - 1 - SIGNAL_WINDOWS.history)]!
  const eventsFrom = calendar[Math.max(0, calendar.length - BUILD_RULES.heatLookbackDays)]!
  const boardsFrom = calendar[Math.max(0, calendar.length - 1 - BOARD_HEAT_RULES.returnDays)]!
  return awaitAll({
    securities: market.securities(),
    bars: (history?.bars ?? market.bars)(from, date),
    edges: market.edges(undefined, date),
    events: market.events(eventsFrom, date),
    boards: market.boardSeries(boardsFrom, date),
    peStats: (history?.peStats ?? market.peStats)(date),
    basics: market.basicsOn(date),
    financials: (history?.financials ?? market.financials)(date),
    forecasts: market.forecasts(date),
    lastEvent: market.lastEventDate(date),
    missingBars: (history?.missingBars ?? market.missingBars)(date),
    marketInput: history ? history.marketInput(date, calendar) : loadMarketInput(deps.db, date, calendar),
    indexReturns: market.indexReturns(REGIME_INDEX, from, date),
    icHistory: deps.icHistory(date, WEIGHT_RULES.windowDays, SIGNAL_DEFINITIONS),
    previousMain: deps.previousMain(date),
  })
}

/** Each property's promise awaited, all at once. */
async function awaitAll<T extends Record<string, unknown>>(promises: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const keys = Object.keys(promises)
  const values = await Promise.all(Object.values(promises))
  return Object.fromEntries(keys.map((key, i) => [key, values[i]])) as T
}

/** Each stock with a bar on the date: its valuation, quality and size facts for the score. */
async function factsOf(date: string, inputs: BuildInputs): Promise<Map<string, StockFacts>> {
  const { bars, basics, financials, peStats, forecasts } = inputs
  const facts = new Map<string, StockFacts>()
  let done = 0
  for (const [code, series] of bars) {
    // a chain runs inside the server: let requests through now and then
    if (++done % 500 === 0) await new Promise((resolve) => setImmediate(resolve))
    if (series.dates.at(-1) !== date) continue
    const basic = basics.get(code)
    const reports = financials.get(code) ?? []
    const f = stockFacts({
      date,
      price: series.close.at(-1)!,
      peToday: basic?.pe_ttm ?? null,
      pe: peStats.get(code) ?? null,
      forecast: forecasts.get(code) ?? null,
      financials: reports,
    })
    facts.set(code, {
      upside: f.upside,
      quality: f.quality,
      invalidated: f.invalidated,
      invalidation: f.invalidation,
      valuation_method: f.valuation_method,
      totalMv: basic?.total_mv ?? null,
      peTtm: basic?.pe_ttm ?? null,
      pb: basic?.pb ?? null,
      roe: reports[0]?.roe ?? null,
      cashConversion: reports[0]?.ocf_to_np ?? null,
    })
  }
  return facts
}

/** The build record's counts: how many were scored into each tier, and what the cuts and weights did. */
function buildCounts(
  inputs: Pick<BuildInputs, 'securities' | 'missingBars'>,
  day: ReturnType<typeof scoreDay>,
  weights: ReturnType<typeof learnWeights>,
) {
  const scored = day.rows
  return {
    securities: inputs.securities.length,
    scored: scored.length,
    main: scored.filter((s) => s.tier === 'main').length,
    observe: scored.filter((s) => s.tier === 'observe').length,
    reject: scored.filter((s) => s.tier === 'reject').length,
    // listed on T (not yet delisted) without a bar; suspended days are bars, so they do not count
    missing_bars: inputs.missingBars,
    eligible: day.cuts.eligible,
    weak_regime_demoted: day.weakDemoted,
    kept_in_main: day.cuts.kept,
    ic_days: Math.max(0, ...Object.values(weights).map((w) => w.days)),
  }
}
