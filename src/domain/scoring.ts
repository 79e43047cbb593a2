import { BUILD_RULES, tierOf } from './build-rules.js'
import type { TierRow } from './plan-types.js'
import { percentileRanks } from './rank.js'
import { mean, roundTo as round } from './stats.js'
import { eventEma, type ThemeEvent, themeHeat } from './theme-heat.js'

/** A code's bars as columns, oldest first; `preClose` and `isSt` are the last bar's. */
export interface BarSeries {
  readonly dates: readonly string[]
  readonly close: readonly number[]
  readonly adjFactor: readonly number[]
  readonly amount: readonly number[]
  readonly suspended: readonly boolean[]
  readonly preClose: number | null
  readonly isSt: boolean
}

export interface BuildSecurity {
  readonly code: string
  readonly name: string
  readonly list_date: string | null
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
  readonly facts: ReadonlyMap<string, StockFacts>
}

/** A tier row as the build produces it: every stock scored has a close on the date. */
export interface ScoredStock extends TierRow {
  readonly close: number
}

interface LastBar {
  readonly close: number
  readonly preClose: number | null
  readonly suspended: boolean
  readonly isSt: boolean
}

interface Features {
  readonly security: BuildSecurity
  readonly last: LastBar
  readonly ret20: number | null
  readonly trend: number
  readonly amountMa20: number
}

const NEVER_NEW = 99_999

function features(security: BuildSecurity, bars: BarSeries): Features {
  const n = bars.close.length
  const adj = bars.close.map((c, i) => c * bars.adjFactor[i]!)
  const back = BUILD_RULES.returnDays
  const ret20 = n > back ? adj[n - 1]! / adj[n - 1 - back]! - 1 : null
  const ma20 = n >= BUILD_RULES.maShort ? mean(adj.slice(n - BUILD_RULES.maShort)) : null
  const ma60 = n >= BUILD_RULES.maLong ? mean(adj.slice(n - BUILD_RULES.maLong)) : null
  const aboveShort = ma20 === null ? 0.25 : adj[n - 1]! > ma20 ? 0.5 : 0
  const shortOverLong = ma20 === null || ma60 === null ? 0.25 : ma20 > ma60 ? 0.5 : 0
  const traded: number[] = []
  for (let i = Math.max(0, n - BUILD_RULES.amountDays); i < n; i++) if (!bars.suspended[i]) traded.push(bars.amount[i]!)
  return {
    security,
    last: { close: bars.close[n - 1]!, preClose: bars.preClose, suspended: bars.suspended[n - 1]!, isSt: bars.isSt },
    ret20,
    trend: aboveShort + shortOverLong,
    amountMa20: mean(traded) ?? 0,
  }
}

function listedDays(listDate: string | null, calendar: readonly string[]): number {
  if (listDate === null || calendar.length === 0 || listDate < calendar[0]!) return NEVER_NEW
  return calendar.filter((d) => d >= listDate).length
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
  for (const [theme, codes] of themeMembers) heat.set(theme, themeHeat(emas.get(theme) ?? 0, breadthOf(codes, feats)))
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

/** Tier scores for data date T: every listed stock with a bar on T, ranked 1 = best (ties by code). */
export function scoreStocks(input: BuildInput): ScoredStock[] {
  const feats = new Map<string, Features>()
  for (const security of input.securities) {
    const bars = input.bars.get(security.code)
    if (!bars || bars.dates.length === 0 || bars.dates[bars.dates.length - 1] !== input.date) continue
    feats.set(security.code, features(security, bars))
  }
  const momentum = percentileRanks(new Map([...feats].map(([c, f]) => [c, f.ret20])))
  const liquidity = percentileRanks(new Map([...feats].map(([c, f]) => [c, f.amountMa20])))
  const upsidePct = percentileRanks(new Map([...feats.keys()].map((c) => [c, input.facts.get(c)?.upside ?? null])))
  const graph = graphScores(input, feats)
  const edgesByCode = groupEdges(input.edges)
  const w = BUILD_RULES.weights
  const scored = [...feats].map(([code, f]) => {
    const facts = input.facts.get(code)
    const g = graph.get(code)
    const momentumTrend =
      BUILD_RULES.momentumShare * (momentum.get(code) ?? 0) + (1 - BUILD_RULES.momentumShare) * f.trend
    const quality =
      facts?.quality === null || facts?.quality === undefined ? BUILD_RULES.missingQuality : facts.quality / 100
    const raw =
      w.heatTransmission * (g?.strength ?? 0) +
      w.momentumTrend * momentumTrend +
      w.upside * (upsidePct.get(code) ?? BUILD_RULES.missingUpsidePct) +
      w.liquidity * (liquidity.get(code) ?? 0) +
      w.quality * quality
    const score = round(100 * raw, 2)
    return {
      code,
      name: f.security.name,
      score,
      rank: 0,
      tier: tierOf(score),
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
      listed_days: listedDays(f.security.list_date, input.calendar),
      amount_ma20: round(f.amountMa20, 2),
      invalidated: facts?.invalidated ?? false,
    }
  })
  scored.sort((a, b) => b.score - a.score || (a.code < b.code ? -1 : 1))
  return scored.map((s, i) => ({ ...s, rank: i + 1 }))
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
