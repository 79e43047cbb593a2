import { type BoardSeries, blendedHeat, boardHeat } from './board-heat.js'
import { BUILD_RULES } from './build-rules.js'
import type { Board } from './codes.js'
import { DEFAULT_PLAN_BOOK_SIZE, EDGE_RULES, type TradeEdge, tradeEdge } from './expected-edge.js'
import type { TierRow, TradeFlag } from './plan-types.js'
import { limitPrices } from './regime.js'
import { SCREEN_RULES } from './screening.js'
import { combineSignals, percentileAmong, scorePoints } from './signal-score.js'
import type { SignalWeights } from './signal-weights.js'
import {
  type FlagColumn,
  type NumberColumn,
  normaliseSignalColumns,
  type OptionalColumn,
  type SignalColumns,
  type SignalFacts,
  type SignalValues,
  signalsByCode,
  stockSignals,
} from './signals.js'
import { mean, roundTo as round } from './stats.js'
import { eventEma, type ThemeEvent } from './theme-heat.js'
import { assignTiers, isEligible, type TierCuts } from './tiers.js'
import { tradingDaysBetween } from './trading-days.js'

/** A code's bars as columns, oldest first; `preClose` and `isSt` are the last bar's. */
export interface BarSeries {
  readonly dates: readonly string[]
  readonly close: NumberColumn
  readonly adjFactor: NumberColumn
  readonly amount: NumberColumn
  readonly suspended: FlagColumn
  /** Shares traded per day, raw (`adjusted` puts them on the last day's share count); absent = unknown. */
  readonly volume?: NumberColumn
  /** Turnover rate per day as a fraction, null (NaN in a typed column) where unknown. */
  readonly turnover?: OptionalColumn
  /** Each bar's close over its own open (the intraday signal); absent = unknown. */
  readonly intraday?: NumberColumn
  readonly preClose: number | null
  readonly isSt: boolean
  /** The last bar's open, high and low (tradability flags); absent = unknown. */
  readonly open?: number | null
  readonly high?: number | null
  readonly low?: number | null
}

export interface BuildSecurity {
  readonly code: string
  readonly name: string
  readonly list_date: string | null
  readonly board?: string
}

export interface Edge {
  readonly theme: string
  readonly segment: string
  readonly code: string
  readonly weight: number
  readonly evidence: string
  readonly track: string
}

export interface StockFacts {
  readonly upside: number | null
  readonly quality: number | null // 0..100
  readonly invalidated: boolean
  readonly invalidation?: string | null
  readonly valuation_method?: string | null
  /** The day's daily_basic and the latest report, for the value, size and quality signals. */
  readonly totalMv?: number | null
  readonly peTtm?: number | null
  readonly pb?: number | null
  readonly roe?: number | null
  readonly cashConversion?: number | null
}

export interface BuildInput {
  readonly date: string
  /** Trading days ascending, ending at `date`. */
  readonly calendar: readonly string[]
  readonly securities: readonly BuildSecurity[]
  /** Bars per code, ascending, ending at or before `date`. */
  readonly bars: ReadonlyMap<string, BarSeries>
  readonly edges: readonly Edge[]
  readonly events: readonly ThemeEvent[]
  /** Concept board closes by theme name, ending on or before `date` (heat of a theme without events). */
  readonly boards?: ReadonlyMap<string, BoardSeries>
  readonly facts: ReadonlyMap<string, StockFacts>
  /** The day's regime is weak: nobody enters `main` (its holdings stay). */
  readonly weakRegime?: boolean
  /** The benchmark's daily returns by date (idiosyncratic volatility). */
  readonly indexReturns: ReadonlyMap<string, number>
  /** The walk-forward weights of the day (`learnWeights`). */
  readonly weights: SignalWeights
  /** The previous plan date's published `main` (who is held), each code with its plan days in `main` in a row. */
  readonly previousMain: ReadonlyMap<string, number>
  /** The book size the plan is built for, CNY: the trading costs entry and stay are weighed against. */
  readonly bookSize?: number
}

/** A tier row as the build produces it: every stock scored has a close on the date. */
export interface ScoredStock extends TierRow {
  readonly close: number
  /** The stock's rank-normalised signals in [-1, 1]; a missing signal has no key. */
  readonly signals: SignalValues
}

interface LastBar {
  readonly close: number
  readonly preClose: number | null
  readonly suspended: boolean
  readonly isSt: boolean
  readonly open: number | null
  readonly high: number | null
  readonly low: number | null
}

export interface Features {
  readonly security: BuildSecurity
  readonly last: LastBar
  readonly amountMa20: number
}

/** Sample sd of the daily returns of the last `days` traded bars (adjusted closes); null with fewer than `min`. */
export function recentVolatility(bars: BarSeries, days: number, min: number): number | null {
  const closes: number[] = []
  for (let i = bars.close.length - 1; i >= 0 && closes.length <= days; i--)
    if (!bars.suspended[i]) closes.push(bars.close[i]! * bars.adjFactor[i]!)
  const rets: number[] = []
  for (let k = 0; k + 1 < closes.length; k++) rets.push(closes[k]! / closes[k + 1]! - 1)
  if (rets.length < min) return null
  const m = rets.reduce((a, b) => a + b, 0) / rets.length
  return Math.sqrt(rets.reduce((a, r) => a + (r - m) ** 2, 0) / (rets.length - 1))
}

const NEVER_NEW = 99_999

export function features(security: BuildSecurity, bars: BarSeries): Features {
  const n = bars.close.length
  const traded: number[] = []
  for (let i = Math.max(0, n - BUILD_RULES.amountDays); i < n; i++) if (!bars.suspended[i]) traded.push(bars.amount[i]!)
  return {
    security,
    last: {
      close: bars.close[n - 1]!,
      preClose: bars.preClose,
      suspended: Boolean(bars.suspended[n - 1]),
      isSt: bars.isSt,
      open: bars.open ?? null,
      high: bars.high ?? null,
      low: bars.low ?? null,
    },
    amountMa20: mean(traded) ?? 0,
  }
}

function listedDays(listDate: string | null, calendar: readonly string[]): number {
  if (listDate === null || calendar.length === 0 || listDate < calendar[0]!) return NEVER_NEW
  return tradingDaysBetween(calendar, listDate)
}

/** Share of distinct codes (traded on the day) that closed above the previous close. */
function breadthOf(codes: Iterable<string>, feats: ReadonlyMap<string, Features>): number | null {
  let up = 0
  let total = 0
  for (const code of new Set(codes)) {
    const f = feats.get(code)
    if (!f || f.last.suspended || f.last.preClose === null) continue
    total++
    if (f.last.close > f.last.preClose) up++
  }
  return total === 0 ? null : up / total
}

/** Distinct codes that closed at the limit up on the day. */
function limitUpsOf(codes: Iterable<string>, feats: ReadonlyMap<string, Features>, input: BuildInput): number {
  let n = 0
  for (const code of new Set(codes)) {
    const f = feats.get(code)
    if (!f) continue
    const listed = listedDays(f.security.list_date, input.calendar)
    if (tradeFlags(f, listed, input.date).includes('limit_up_close')) n++
  }
  return n
}

function groupCodes(edges: readonly Edge[], key: (e: Edge) => string): Map<string, string[]> {
  const out = new Map<string, string[]>()
  for (const e of edges) {
    const list = out.get(key(e))
    if (list) list.push(e.code)
    else out.set(key(e), [e.code])
  }
  return out
}

interface GraphScore {
  readonly edge: Edge
  readonly heat: number
  readonly transmission: number
  readonly strength: number
}

function graphScores(input: BuildInput, feats: ReadonlyMap<string, Features>): Map<string, GraphScore> {
  const emas = eventEma(input.events, input.calendar.slice(-BUILD_RULES.heatLookbackDays))
  const themeMembers = groupCodes(input.edges, (e) => e.theme)
  const segmentMembers = groupCodes(input.edges, (e) => `${e.theme}\u0000${e.segment}`)
  const heat = new Map<string, number>()
  for (const [theme, codes] of themeMembers) {
    const breadth = breadthOf(codes, feats)
    const series = input.boards?.get(theme)
    const board = series ? boardHeat({ series, breadth, limitUps: limitUpsOf(codes, feats, input) }, input.date) : null
    heat.set(theme, blendedHeat(emas.get(theme), board, breadth))
  }
  const segmentBreadth = new Map<string, number>()
  for (const [key, codes] of segmentMembers) segmentBreadth.set(key, breadthOf(codes, feats) ?? 0)
  const best = new Map<string, GraphScore>()
  for (const edge of input.edges) {
    const h = heat.get(edge.theme) ?? 0
    const segment = segmentBreadth.get(`${edge.theme}\u0000${edge.segment}`) ?? 0
    const transmission = edge.weight * (BUILD_RULES.segmentBase + (1 - BUILD_RULES.segmentBase) * segment)
    const candidate = { edge, heat: h, transmission, strength: (h / 100) * transmission }
    const current = best.get(edge.code)
    if (
      !current ||
      candidate.strength > current.strength ||
      (candidate.strength === current.strength && edge.theme < current.edge.theme)
    ) {
      best.set(edge.code, candidate)
    }
  }
  return best
}

const BOARDS: readonly string[] = ['main', 'star', 'chinext', 'bse']

/** Tradability flags of the day's last bar (DESIGN §8 plan rows; limit prices from `limitPrices`). */
export function tradeFlags(f: Features, listedDays: number, date: string): TradeFlag[] {
  const flags: TradeFlag[] = []
  const { last } = f
  const board = f.security.board
  if (!last.suspended && last.preClose !== null && last.preClose > 0 && board && BOARDS.includes(board)) {
    // null on a new listing's days without a limit: nothing to close at
    const limits = limitPrices(last.preClose, board as Board, last.isSt, date, listedDays)
    if (limits !== null) {
      const atUp = last.close >= limits.up
      if (atUp) flags.push('limit_up_close')
      const oneWord = last.high !== null && last.low !== null && last.high === last.low
      if (oneWord && (atUp || last.close <= limits.down)) flags.push('one_word_board')
    }
  }
  if (last.isSt) flags.push('st')
  if (listedDays < SCREEN_RULES.minListedDays) flags.push('new_listing')
  return flags
}

export interface ScoredDay {
  readonly rows: ScoredStock[]
  readonly cuts: TierCuts
  readonly weakDemoted: number
  /** The rows' signals as columns, the same values as each row's `signals`. */
  readonly signalColumns: SignalColumns
}

/**
 * The bars a signal reads, adjusted (the series as it is when adjFactor is 1 throughout, as the store hands it):
 * closes x adjFactor, volumes on the last day's share count (x the last factor / the day's), so a bonus issue or
 * split moves neither.
 */
function adjusted(bars: BarSeries): BarSeries {
  const { close, adjFactor, volume } = bars
  let unadjusted = true
  for (let i = 0; i < adjFactor.length && unadjusted; i++) unadjusted = adjFactor[i] === 1
  if (unadjusted) return bars
  const last = adjFactor[adjFactor.length - 1]!
  return {
    ...bars,
    close: Array.from(close, (c, i) => c * adjFactor[i]!),
    volume: volume && Array.from(volume, (v, i) => (adjFactor[i] === last ? v : (v * last) / adjFactor[i]!)),
  }
}

function signalFacts(facts: StockFacts | undefined, graph: GraphScore | undefined, themesLoaded: boolean): SignalFacts {
  return {
    totalMv: facts?.totalMv ?? null,
    peTtm: facts?.peTtm ?? null,
    pb: facts?.pb ?? null,
    roe: facts?.roe ?? null,
    cashConversion: facts?.cashConversion ?? null,
    upside: facts?.upside ?? null,
    heat: themesLoaded ? (graph?.strength ?? 0) : null,
  }
}

/** Why `main` must be empty because no signal carries weight, or null. */
function noModelReason(weights: SignalWeights): string | null {
  return Object.values(weights).some((w) => w.weight !== 0) ? null : 'no signal carries weight (every weight is 0)'
}

/**
 * Tier scores for data date T (PLAN_VERSION 6): every listed stock with a bar on T gets its signals, the weighted
 * sum of those it has, a score (the percentile of that sum among the day's eligible stocks, 0..100) shared out as
 * points per signal, a rank (1 = best, ties by code) and a tier.
 */
export function scoreDay(input: BuildInput): ScoredDay {
  const feats = new Map<string, Features>()
  const series = new Map<string, BarSeries>()
  for (const security of input.securities) {
    const bars = input.bars.get(security.code)
    if (!bars || bars.dates.length === 0 || bars.dates[bars.dates.length - 1] !== input.date) continue
    feats.set(security.code, features(security, bars))
    series.set(security.code, adjusted(bars))
  }
  const graph = graphScores(input, feats)
  const themesLoaded = input.edges.length > 0
  const raw = new Map(
    [...series].map(([code, bars]) => [
      code,
      stockSignals(bars, signalFacts(input.facts.get(code), graph.get(code), themesLoaded), input.indexReturns),
    ]),
  )
  const signalColumns = normaliseSignalColumns(raw)
  const signals = signalsByCode(signalColumns)
  const edgesByCode = groupEdges(input.edges)
  const base = [...feats].map(([code, f]) => {
    const facts = input.facts.get(code)
    const g = graph.get(code)
    const listed = listedDays(f.security.list_date, input.calendar)
    const own = signals.get(code) ?? {}
    return {
      code,
      name: f.security.name,
      combined: combineSignals(own, input.weights),
      signals: own,
      theme: g?.edge.theme ?? null,
      segment: g?.edge.segment ?? null,
      track: g?.edge.track ?? null,
      upside: facts?.upside === null || facts?.upside === undefined ? null : round(facts.upside, 3),
      heat: g ? g.heat : null,
      transmission: g ? round(g.transmission, 3) : null,
      graph_evidence: edgesByCode.get(code) ?? [],
      close: f.last.close,
      is_suspended: f.last.suspended,
      is_st: f.last.isSt,
      listed_days: listed,
      amount_ma20: round(f.amountMa20, 2),
      invalidated: facts?.invalidated ?? false,
      flags: tradeFlags(f, listed, input.date),
      valuation_method: facts?.valuation_method ?? null,
      invalidation: facts?.invalidated ? (facts.invalidation ?? null) : null,
    }
  })
  const reference = base
    .filter((r) => isEligible(r) && r.combined.raw !== null)
    .map((r) => r.combined.raw!)
    .sort((a, b) => a - b)
  const scored = base.map((row) => {
    const { combined } = row
    const score = combined.raw === null ? 0 : round(percentileAmong(reference, combined.raw), BUILD_RULES.pointDigits)
    return { row, score, components: scorePoints(score, combined.parts, BUILD_RULES.pointDigits), raw: combined.raw }
  })
  scored.sort((a, b) => b.score - a.score || (a.row.code < b.row.code ? -1 : 1))
  const all = scored.map((s) => s.raw ?? Number.NEGATIVE_INFINITY).sort((a, b) => a - b)
  // each row built once, field by field: copying 20 fields by rest and spread, twice, was a tenth of a build
  const ranked = scored.map(({ row, score, components, raw: r }, i) => ({
    code: row.code,
    name: row.name,
    signals: row.signals,
    theme: row.theme,
    segment: row.segment,
    track: row.track,
    upside: row.upside,
    heat: row.heat,
    transmission: row.transmission,
    graph_evidence: row.graph_evidence,
    close: row.close,
    is_suspended: row.is_suspended,
    is_st: row.is_st,
    listed_days: row.listed_days,
    amount_ma20: row.amount_ma20,
    invalidated: row.invalidated,
    flags: row.flags,
    valuation_method: row.valuation_method,
    invalidation: row.invalidation,
    score,
    components,
    rank: i + 1,
    score_pct: round(percentileAmong(all, r ?? Number.NEGATIVE_INFINITY), 2),
  }))
  const bookSize = input.bookSize ?? DEFAULT_PLAN_BOOK_SIZE
  const edges = new Map<string, TradeEdge>()
  for (const row of ranked) {
    if (!isEligible(row)) continue
    const vol20d = recentVolatility(input.bars.get(row.code)!, EDGE_RULES.horizon, EDGE_RULES.minReturns)
    edges.set(row.code, tradeEdge({ score: row.score, vol20d, amountMa20: row.amount_ma20 }, input.date, bookSize))
  }
  const tiered = assignTiers(ranked, {
    weak: input.weakRegime === true,
    previousMain: input.previousMain,
    edges,
    bookSize,
    noModel: noModelReason(input.weights),
  })
  return { ...tiered, signalColumns }
}

function groupEdges(edges: readonly Edge[]): Map<string, Array<Omit<Edge, 'code'>>> {
  const out = new Map<string, Array<Omit<Edge, 'code'>>>()
  for (const { code, ...rest } of edges) {
    const list = out.get(code)
    if (list) list.push(rest)
    else out.set(code, [rest])
  }
  for (const list of out.values()) list.sort((a, b) => b.weight - a.weight || a.theme.localeCompare(b.theme))
  return out
}
